// SPDX-License-Identifier: GPL-2.0
/* The planted KUnit suite, built to fail (see rg_kunit_planted.c). */
#define RG_PLANT_FAIL 1
#define RG_PLANT_NAME "rg_kunit_planted_fail"
#include "rg_kunit_planted.c"

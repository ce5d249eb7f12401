// SPDX-License-Identifier: GPL-2.0
/* A second copy of the test controller, to load it twice. */
#include "rg_test_ctl.c"

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version of the Resource Groups modules (MODULE_VERSION: modinfo,
 * /sys/module/NAME/version) and of rgctl, which compares the two. It is
 * debian/changelog's upstream version: debian/rules refuses to build a
 * package whose version differs.
 */
#ifndef _LINUX_RES_GROUPS_VERSION_H
#define _LINUX_RES_GROUPS_VERSION_H

#define RES_GROUPS_VERSION "0.3.0"

#endif /* _LINUX_RES_GROUPS_VERSION_H */

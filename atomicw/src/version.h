/* SPDX-License-Identifier: MIT */
/* The tool's version, printed by --version: change it here only. */
#ifndef AW_VERSION_H
#define AW_VERSION_H

#define AW_VERSION "0.3.0"

#endif

/* SPDX-License-Identifier: MIT */ /* the project's own forced include, as some projects have (config.h) */
#define OWN_INCLUDED 1

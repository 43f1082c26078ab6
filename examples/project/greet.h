/* SPDX-License-Identifier: MIT */ char *greet(const char *who);

/* SPDX-License-Identifier: MIT */
/* A C library used from C++, and a C++ one used from C. */
#ifdef __cplusplus
extern "C" {
#endif
char *clib_copy(const char *s);         /* malloc's */
void clib_release(char *s);             /* free */
void *cxxlib_make(int n);               /* new[]'s */
void cxxlib_destroy(void *p);           /* delete[] */
#ifdef __cplusplus
}
#endif

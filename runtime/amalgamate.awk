# SPDX-License-Identifier: MIT
# runtime/amalgamate.awk - mtrace.c as one file: each line
# #include "runtime/NAME" is replaced by that file's text (they include
# nothing of ours themselves).  Used by `make build/mtrace.c`.
/^#include "runtime\/[a-z_]+\.[ch]"/ {
    split($0, q, "\"")
    file = q[2]
    print "/* ---- " file " ---- */"
    while ((getline line < file) > 0)
        print line
    close(file)
    next
}
{ print }

# SPDX-License-Identifier: MIT
# embed.awk - the page's style and script as C strings: each input file
# (convert/html/page.css, page.js) becomes "const char m2m_page_NAME[]",
# one string literal a line, for convert/html/m2m_html_page.c (pages.h
# declares them).  Refuses a file
# that holds "</script" or "</style" (it would end its element early).
# Part of mtrace, under the project's licence.
# s with '\\' and '"' escaped for a C string (char by char: awks differ
# on backslashes in gsub's replacement).
function esc(s,    out, i, ch) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        ch = substr(s, i, 1)
        out = out ((ch == "\\" || ch == "\"") ? "\\" ch : ch)
    }
    return out
}
# With -v out=NAME (mtrace-diff's page: diff_html_page.c),
# the opening comment names that file and its inputs.
BEGIN {
    print "/* SPDX-License-Identifier: MIT */"
    if (out != "") {
        files = ""
        for (i = 1; i < ARGC; i++) {
            f = ARGV[i]
            sub(/^.*\/html\//, "convert/html/", f)
            files = files (i > 1 ? " and " : "") f
        }
        print "/* " out " - made by convert/html/embed.awk from"
        print " * " files " (`make`):"
        print " * do not edit, edit those.  The page's style and script, hand-written"
        print " * for mtrace, under the project's licence."
        print " * Calls: nothing. */"
        print "#include \"pages.h\""
    } else {
    print "/* m2m_html_page.c - made by convert/html/embed.awk from convert/html/page.css,"
    print " * common.js, page.js and run.js (`make`): do not edit, edit those.  The pages'"
    print " * style and script, hand-written for mtrace, under the project's licence."
    print " * Calls: nothing. */"
    print "#include \"pages.h\""
    }
}
FNR == 1 {
    if (name != "")
        print ";"
    name = FILENAME
    sub(/.*\//, "", name)
    sub(/\..*/, "", name)
    ext = FILENAME
    sub(/.*\./, "", ext)
    printf "\nconst char m2m_%s_%s[] =\n\"\"", name, ext
}
{
    if (tolower($0) ~ /<\/(script|style)/) {
        print FILENAME ":" FNR ": '</script' or '</style' would end the page's element" > "/dev/stderr"
        failed = 1
        exit 1
    }
    printf "\n\"%s\\n\"", esc($0)
}
END {
    if (failed)
        exit 1
    if (name != "")
        print ";"
}

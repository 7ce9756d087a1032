#!/bin/bash
# Every public function of clik.h, and of the public headers it includes,
# has a row in the misuse table of test_misuse, and every row names a
# public function.
# Usage: misuse_functions.sh PATH/TO/clik.h PATH/TO/test_misuse
set -euo pipefail
header=$1
table_exe=$2

# The headers clik.h includes from its folder ("clik_lapar.h"), but those
# whose misuse cases live in a suite of their own: the LAPAR networks'
# (clik_lapar_net.h) in tests/test_lapar_net.c.
elsewhere="clik_lapar_net.h"
headers=("$header")
for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$header"); do
    case " $elsewhere " in *" $h "*) continue ;; esac
    headers+=("$(dirname "$header")/$h")
done

# The name before the first '(' of each `CLIK_API ... name(` declaration,
# comments and preprocessor lines left out (the CLIK_API definitions are
# preprocessor lines); a declaration may span lines.
declared=$(awk '
    /^[ \t]*#/ { next }
    { text = text $0 "\n" }
    END {
        while ((start = index(text, "/*")) > 0) {
            rest = substr(text, start + 2)
            stop = index(rest, "*/")
            if (stop == 0) { text = substr(text, 1, start - 1); break }
            text = substr(text, 1, start - 1) " " substr(rest, stop + 2)
        }
        gsub(/\/\/[^\n]*/, "", text)
        while (match(text, /CLIK_API[^;(){}]*\(/)) {
            decl = substr(text, RSTART, RLENGTH - 1)
            text = substr(text, RSTART + RLENGTH)
            n = split(decl, words, /[^A-Za-z0-9_]+/)
            for (i = n; i > 0; i--)
                if (words[i] != "") { print words[i]; break }
        }
    }' "${headers[@]}" | sort)
rows=$("$table_exe" --list | sort)

status=0
if [ -z "$declared" ]; then
    echo "FAIL: no CLIK_API declaration found in $header"
    exit 1
fi
if [ -z "$rows" ]; then
    echo "FAIL: $table_exe --list printed no rows"
    exit 1
fi
dups=$(printf '%s\n' "$declared" | uniq -d)
if [ -n "$dups" ]; then
    echo "FAIL: declared more than once in ${headers[*]}:" $dups
    status=1
fi
dups=$(printf '%s\n' "$rows" | uniq -d)
if [ -n "$dups" ]; then
    echo "FAIL: more than one row in the misuse table:" $dups
    status=1
fi
missing=$(comm -23 <(printf '%s\n' "$declared" | uniq) <(printf '%s\n' "$rows" | uniq))
stale=$(comm -13 <(printf '%s\n' "$declared" | uniq) <(printf '%s\n' "$rows" | uniq))
for f in $missing; do
    echo "FAIL: $f is declared in ${headers[*]} but has no row in tests/test_misuse.c (misuse_rows)"
    status=1
done
for f in $stale; do
    echo "FAIL: tests/test_misuse.c has a row for $f, which ${headers[*]} does not declare"
    status=1
done
if [ $status -eq 0 ]; then
    echo "ok: $(printf '%s\n' "$declared" | wc -l) public functions, one row each"
fi
exit $status

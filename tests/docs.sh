#!/bin/bash
# The tool's man page and bash completion (apps/docs/gen_docs.py): every
# command of `clik help` in both, and the completion completing commands,
# options after a global option, and a command's options.
# Usage: docs.sh CLIK MAN_PAGE COMPLETION
set -u
clik=$1 man=$2 completion=$3
. "$(dirname "$0")/cli_lib.sh"
check() { # check WHAT GOT WANT
    if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', expected '$3'"; fi
}
commands=$("$clik" help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
missing=""
for c in $commands; do
    grep -q "^\.SS $c\$" "$man" || missing="$missing man:$c"
    grep -q "^    $c) opts=" "$completion" || missing="$missing completion:$c"
done
check "every command in the man page and the completion" "${missing:-none}" none
check "the man page's synopsis" "$(grep -c '^\.SH SYNOPSIS' "$man")" 1
complete_words() { # complete_words WORD... : what the completion offers for the last word
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clik; echo "${COMPREPLY[*]}"' \
        _ "$completion" "$@"
}
check "completes a command" "$(complete_words clik equ)" equalize
check "skips a global option's value" "$(complete_words clik --device none resi)" resize
check "completes a command's option" "$(complete_words clik resize in.png --anti)" --antialias
check "completes a global option after a command" "$(complete_words clik blur in.png --raw)" --raw-orientation
check "completes help's command" "$(complete_words clik help conf)" conformance
[ "$failures" -eq 0 ]

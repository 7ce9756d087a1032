#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the clik tool's man page and its bash completion from the tool's
own help texts, so that neither can drift from them.

    gen_docs.py CLIK MAN_PAGE COMPLETION

CLIK is the built tool; `clik help` gives the commands and the global
options, `clik help CMD` each command's usage and text.
"""
import re
import subprocess
import sys


def clik_help(clik, *args):
    return subprocess.run([clik, "help", *args], check=True, capture_output=True,
                          text=True).stdout


def roff(text):
    """Text as troff takes it literally: backslashes doubled, and no line
    starting with a control character."""
    lines = []
    for line in text.replace("\\", "\\e").split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def main():
    clik, man_path, completion_path = sys.argv[1:4]
    top = clik_help(clik)
    listing = top.split("\ncommands:\n", 1)[1]
    commands = re.findall(r"^  ([a-z][a-z0-9-]*) +(.*)$", listing.split("\n\n", 1)[0], re.M)
    globals_text = listing.split("\n\n", 1)[1].rsplit("\nclik ", 1)[0]
    version = top.rsplit("\nclik ", 1)[1].strip()
    if not commands:
        sys.exit("gen_docs.py: no commands in `clik help`")
    helps = {name: clik_help(clik, name) for name, _ in commands}

    man = [
        '.TH CLIK 1 "" "clik %s" "User Commands"' % version,
        ".SH NAME",
        "clik \\- OpenCL image kernels with a CPU fallback, from the command line",
        ".SH SYNOPSIS",
        ".B clik",
        "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR] [\\fIOPTIONS\\fR]",
        ".br",
        ".B clik help",
        "\\fICOMMAND\\fR",
        ".SH DESCRIPTION",
        "Runs one operation of the clik library on images, on the OpenCL device it "
        "selects or on the C path; \\fBclik conformance\\fR checks every kernel "
        "against the scalar oracle. The commands:",
    ]
    for name, summary in commands:
        man += [".TP", "\\fB%s\\fR" % name, roff(summary)]
    man += [".SH OPTIONS", ".nf", roff(globals_text.strip("\n")), ".fi", ".SH COMMANDS"]
    for name, _ in commands:
        man += [".SS %s" % name, ".nf", roff(helps[name].strip("\n")), ".fi"]
    man += [".SH SEE ALSO", "The README of the clik sources; \\fBclinfo\\fR(1)."]
    with open(man_path, "w") as f:
        f.write("\n".join(man) + "\n")

    listed = re.findall(r"^  (?:(-[a-z]), )?(--[a-z][a-z0-9-]*)( [A-Z])?", globals_text, re.M)
    global_opts = sorted({o for short, long, _ in listed for o in (short, long) if o})
    takes_value = sorted({long for _, long, value in listed if value})
    cases = []
    for name, _ in commands:
        # the first paragraph after "clik NAME calls FUNCTIONS", if any
        text = helps[name]
        if text.startswith("clik %s calls " % name):
            text = text.split("\n\n", 1)[1]
        usage = text.split("\n\n", 1)[0]
        opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", usage)) - set(global_opts))
        cases.append('    %s) opts="%s" ;;' % (name, " ".join(opts)))
    completion = """# bash completion of clik, written by apps/docs/gen_docs.py from `clik help`.
_clik() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i opts=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        %(takes_value)s) ((i++)) ;;
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "%(commands)s help %(globals)s" -- "$cur"))
        return
    fi
    case $cmd in
%(cases)s
    help) COMPREPLY=($(compgen -W "%(commands)s" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts %(globals)s --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _clik clik
""" % {
        "takes_value": "|".join(takes_value) or "--device",
        "commands": " ".join(n for n, _ in commands),
        "globals": " ".join(global_opts),
        "cases": "\n".join(cases),
    }
    with open(completion_path, "w") as f:
        f.write(completion)


if __name__ == "__main__":
    main()

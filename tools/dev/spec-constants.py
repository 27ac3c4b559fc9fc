#!/usr/bin/env python3
"""Extract attribute strings and constant values from the PMIx Standard's LaTeX.

Usage: spec-constants.py SPECDIR attrs|consts

attrs  -> one line per attribute: NAME<TAB>"string"<TAB>type<TAB>kind
consts -> one line per constant with a value: NAME<TAB>value<TAB>kind
kind is the declaration flavour (plain, Provisional, DEP, RM), so the header
generator can mark deprecated names.
"""
import glob
import os
import re
import sys

ATTR = re.compile(r'\\declareAttribute(DEP|RM|Provisional)?\{([A-Za-z0-9_]+)\}\{"+([^"]*)"\}\{([^}]*)\}')
CONST = re.compile(r'\\declareconstitemvalue(Provisional)?\{([A-Za-z0-9_]+)\}\{([^}]*)\}')


def main():
    specdir, what = sys.argv[1], sys.argv[2]
    seen = {}
    for path in sorted(glob.glob(os.path.join(specdir, '*.tex'))):
        text = open(path, encoding='utf-8').read()
        rx = ATTR if what == 'attrs' else CONST
        for m in rx.finditer(text):
            if what == 'attrs':
                kind, name, string, ctype = m.groups()
                row = (name, string, ctype.strip(), kind or 'plain')
            else:
                kind, name, value = m.groups()
                row = (name, value.strip(), kind or 'plain')
            # The revisions chapter repeats names as DEP/RM; the chapter that
            # defines a name wins over a later deprecation note.
            if name not in seen or seen[name][-1] in ('DEP', 'RM'):
                seen[name] = row
    for name in sorted(seen):
        print('\t'.join(seen[name]))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ptlab's LAVA jobs and devices, made from their templates in lava/.

    render.py job TEMPLATE [--image PATH | --url URL] [--timeout SECONDS]
                  [--options TEXT] [--ovmf-code PATH] [--ovmf-vars PATH]
        the job TEMPLATE (lava/jobs/*.yaml) on stdout, its @NAME@
        placeholders filled: @PTLAB_IMAGE@ the image's URL (--url, or
        file:// and the absolute path of --image, default build/ptlab.img,
        which must exist), @OVMF_CODE@ and @OVMF_VARS@ file:// URLs of
        OVMF's files (default Debian's 4 MiB ones, which must exist),
        @TIMEOUT@ (default 300), @OPTIONS@ the image's \\ptlab.cfg as text
        (default empty); a value is made only for a placeholder the
        template has
    render.py device DICTIONARY
        the device dictionary DICTIONARY (Jinja2, extending a template of
        lava/device-types/) rendered to YAML on stdout, as lava-server would
    render.py check job|device FILE...
        each FILE (YAML) against lava-server's own schema for a job or a
        device (lava_common.schemas: run it with the Python lava-dispatcher
        is installed for); for a job also each test monitor's patterns
        compiled as the dispatcher compiles them, "pattern" naming the
        groups result and test_case_id, every fixupdict value a result

Every placeholder a template has (outside its comment lines, which are
copied as they are) must get a value and nothing else may be
left looking like one; the result must be YAML.  Errors go to stderr as
"render: ..." with exit status 1 (2: bad usage).
"""

import argparse
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")
RESULTS = ("pass", "fail", "skip", "unknown")


class Refused(Exception):
    pass


def file_url(path, what, must_exist=True):
    """file:// and the absolute path of @path (a file that exists)."""
    if must_exist and not os.path.isfile(path):
        raise Refused("%s: no file %s" % (what, path))
    return "file://" + os.path.abspath(path)


def placeholders(text):
    """The placeholder names of @text's lines that are not comments."""
    return {n for line in text.splitlines() if not line.lstrip().startswith("#")
            for n in PLACEHOLDER.findall(line)}


def fill(text, values):
    """@text with each @NAME@ (outside comment lines) replaced by
    values[NAME] as a YAML scalar."""
    unknown = sorted(placeholders(text) - set(values))
    if unknown:
        raise Refused("no value for %s" % ", ".join("@%s@" % n for n in unknown))

    def scalar(m):
        v = values[m.group(1)]
        return str(v) if isinstance(v, int) else json.dumps(v)

    out = "".join(line if line.lstrip().startswith("#") else PLACEHOLDER.sub(scalar, line)
                  for line in text.splitlines(keepends=True))
    try:
        data = yaml.safe_load(out)
    except yaml.YAMLError as exc:
        raise Refused("the result is not YAML: %s" % exc)
    if not isinstance(data, dict):
        raise Refused("the result is not a YAML mapping")
    return out


def render_job(args):
    with open(args.template) as f:
        text = f.read()
    if args.timeout <= 0:
        raise Refused("--timeout must be a positive number of seconds")
    # each value made only for a template that has its placeholder (the
    # PC's job names no OVMF file)
    makers = {
        "PTLAB_IMAGE": lambda: args.url if args.url else file_url(args.image, "--image"),
        "OVMF_CODE": lambda: file_url(args.ovmf_code, "--ovmf-code"),
        "OVMF_VARS": lambda: file_url(args.ovmf_vars, "--ovmf-vars"),
        "TIMEOUT": lambda: args.timeout,
        "OPTIONS": lambda: args.options,
    }
    values = {n: makers[n]() for n in placeholders(text) if n in makers}
    sys.stdout.write(fill(text, values))


def render_device(args):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([os.path.dirname(os.path.abspath(args.dictionary)),
                                        os.path.join(HERE, "device-types")]),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False)
    try:
        text = env.get_template(os.path.basename(args.dictionary)).render()
    except jinja2.TemplateError as exc:
        raise Refused("%s: %s" % (args.dictionary, exc))
    except TypeError as exc:
        # tojson of an undefined variable: a command the type needs is not set
        raise Refused("%s: a variable its device type needs is not set (%s)"
                      % (args.dictionary, exc))
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise Refused("%s renders no YAML: %s" % (args.dictionary, exc))
    if not isinstance(data, dict):
        raise Refused("%s renders no YAML mapping" % args.dictionary)
    sys.stdout.write(text)


def check_monitors(data):
    """The problems of the job @data's test monitors, as the dispatcher
    would meet them (pexpect compiles each with re.DOTALL)."""
    bad = []
    for action in data.get("actions", []):
        for mon in action.get("test", {}).get("monitors", []):
            name = mon.get("name", "?")
            for key in ("start", "end", "pattern"):
                try:
                    rx = re.compile(mon.get(key, ""), re.DOTALL)
                except re.error as exc:
                    bad.append("monitor %s: %s does not compile: %s" % (name, key, exc))
                    continue
                if key == "pattern":
                    for group in ("result", "test_case_id"):
                        if group not in rx.groupindex:
                            bad.append("monitor %s: pattern has no group %s" % (name, group))
            for k, v in (mon.get("fixupdict") or {}).items():
                if v not in RESULTS:
                    bad.append("monitor %s: fixupdict %r -> %r is no result" % (name, k, v))
    return bad


def check(args):
    from lava_common.schemas import validate as validate_job
    from lava_common.schemas.device import validate as validate_device
    from voluptuous import Invalid

    failed = 0
    for path in args.files:
        with open(path) as f:
            data = yaml.safe_load(f)
        if not isinstance(data, dict):
            print("render: %s: no YAML mapping" % path, file=sys.stderr)
            failed += 1
            continue
        problems = []
        try:
            if args.kind == "job":
                validate_job(data, strict=True)
            else:
                validate_device(data)
        except Invalid as exc:
            problems.append("%s (at %s)" % (exc.msg, "/".join(str(p) for p in exc.path)))
        if args.kind == "job":
            problems += check_monitors(data)
        for p in problems:
            print("render: %s: %s" % (path, p), file=sys.stderr)
        failed += bool(problems)
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(prog="render.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("job")
    j.add_argument("template")
    where = j.add_mutually_exclusive_group()
    where.add_argument("--image", default="build/ptlab.img")
    where.add_argument("--url")
    j.add_argument("--timeout", type=int, default=300)
    j.add_argument("--options", default="")
    j.add_argument("--ovmf-code", default="/usr/share/OVMF/OVMF_CODE_4M.fd")
    j.add_argument("--ovmf-vars", default="/usr/share/OVMF/OVMF_VARS_4M.fd")
    d = sub.add_parser("device")
    d.add_argument("dictionary")
    c = sub.add_parser("check")
    c.add_argument("kind", choices=("job", "device"))
    c.add_argument("files", nargs="+")
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "job":
            render_job(args)
        elif args.cmd == "device":
            render_device(args)
        else:
            return check(args)
    except (Refused, OSError) as exc:
        print("render: %s" % exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

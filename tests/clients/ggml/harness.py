#!/usr/bin/python3
"""ggml's CANN backend as a client of cannon.

Steps: install cannon into a prefix (unless one is given), take the environment of the prefix's set_env.sh,
configure a ggml source tree with -DGGML_CANN=ON (the SoC comes from the prefix's npu-smi, read by ggml's own
CMake), build ggml's test-backend-ops outside the cannon tree, run it in test mode on CANN0 (or on every CANN
device with --devices 2) one ggml op per process, and print a per-op table of passed, failed, aborted and
unsupported cases. An aclnn error makes ggml abort its process; the harness records the case that was running
as aborted and runs the cases after it in new processes. With --perf it also runs the performance mode on
CANN0 and on ggml's CPU backend for the speed-list ops and prints the time ratios.

Exit status: 0 when every case that ran passed and at least one did, 1 on any failed, aborted or unrun case,
2 on a usage, build or setup error. Standard library only.
"""

import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..', '..'))

# Cases that fail because of ggml's CANN code, not of the device under it: what ggml hands to aclnn cannot give
# ggml's result on any CANN device. They are run and reported apart ("ggml-side") and not counted as failures;
# --strict counts them. Each entry: op, a regular expression on the case's parameters, the reason.
CLIENT_DEFECTS = [
    ('CONCAT', r'^type=(q[0-9]|iq|tq|mxfp|nvfp)',
     'ggml_cann_concat hands quantized blocks to aclnnCat as one plain tensor (INT8, INT4 or an undefined dtype, '
     'strides in blocks), while its buffers keep the blocks\' scales apart from their weights: the scales are '
     'never concatenated'),
    ('SET_ROWS', r'^type_src=f16,type_dst=f32,',
     'ggml_cann_set_rows\' F32 path describes the source as FLOAT with the f16 source\'s byte strides (element '
     'strides nb/4, a negative storage size for some views), so aclnnInplaceIndexCopy reads other elements'),
]


def client_defect(op, params):
    """The reason a case is a known ggml-side defect (CLIENT_DEFECTS), else None."""
    for dop, pattern, reason in CLIENT_DEFECTS:
        if dop == op and re.search(pattern, params):
            return reason
    return None


# Ops of the speed list (test-backend-ops names); MUL_MAT is split by the weight type in the tables.
PERF_OPS = ['MUL_MAT', 'SOFT_MAX', 'RMS_NORM', 'ADD', 'MUL', 'ROPE', 'GET_ROWS', 'SET_ROWS', 'CPY',
            'FLASH_ATTN_EXT']
PERF_MUL_MAT_TYPES = ['f32', 'f16', 'q8_0', 'q4_0']

ANSI = re.compile(r'\x1b\[[0-9;]*m')
# Lines of test-backend-ops's console output that are no case and no error text.
SUMMARY = re.compile(r'^(\d+/\d+ (tests|backends) passed|Backend \S+: (OK|FAIL)|OK|FAIL|Failing tests:|Testing \d+ '
                     r'devices|Device (description|memory):.*|Skipping.*)$')
# A case's result alone on a line: its name was printed before some error text of the next case.
RESULT = re.compile(r'^(OK|FAIL|not supported( \[.*\])?|SUPPORTED|NOT SUPPORTED|skipping.*|\d+ runs - .*)$')
PERF = re.compile(r'^\s*(\d+) runs - +([0-9.]+) us/run')


class HarnessError(Exception):
    pass


def log(msg):
    print('[ggml-client] ' + msg, flush=True)


def run(cmd, env=None, cwd=None, quiet=False, logfile=None):
    """Runs a build step; its output goes to logfile (when given) and, unless quiet, to the console."""
    log('$ ' + ' '.join(shlex.quote(c) for c in cmd))
    out = open(logfile, 'a') if logfile else None
    try:
        if out:
            r = subprocess.run(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        elif quiet:
            r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
        else:
            r = subprocess.run(cmd, env=env, cwd=cwd)
    finally:
        if out:
            out.close()
    if r.returncode != 0:
        where = ' (log: %s)' % logfile if logfile else ''
        raise HarnessError('command failed with status %d%s: %s' % (r.returncode, where, ' '.join(cmd)))


def inside(path, root):
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root + os.sep)


def install_cannon(build, prefix, logfile):
    if not os.path.isfile(os.path.join(build, 'CMakeCache.txt')):
        raise HarnessError('no cannon build in %s (run `make build` first, or give --prefix)' % build)
    run(['cmake', '--install', build, '--prefix', prefix], logfile=logfile)


def toolkit_env(prefix):
    """The environment after sourcing the prefix's set_env.sh, as a CANN user's shell has it."""
    script = os.path.join(prefix, 'set_env.sh')
    if not os.path.isfile(script):
        raise HarnessError('%s is not a CANN toolkit prefix: no set_env.sh' % prefix)
    r = subprocess.run(['bash', '-c', '. "$1" >/dev/null && env -0', 'set_env', script],
                       stdout=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise HarnessError('sourcing %s failed' % script)
    env = {}
    for item in r.stdout.split(b'\0'):
        if b'=' in item:
            k, v = item.split(b'=', 1)
            env[k.decode()] = v.decode(errors='replace')
    return env


def detect_soc(env):
    """The chip name the way ggml's CMake reads it: `npu-smi info`, line 7, third field."""
    try:
        r = subprocess.run(['npu-smi', 'info'], env=env, stdout=subprocess.PIPE, check=False)
    except OSError:
        raise HarnessError('npu-smi not found on the PATH set by set_env.sh')
    lines = r.stdout.decode(errors='replace').split('\n')
    fields = lines[6].split() if len(lines) > 6 else []
    if r.returncode != 0 or len(fields) < 3:
        raise HarnessError('npu-smi info gives no chip name on line 7')
    return 'Ascend' + fields[2]


def extra_flags(extra_prefixes):
    """Compiler and linker flags that put overlay prefixes (include/, lib64/*.so) into the ggml build only."""
    if not extra_prefixes:
        return []
    incs, libs = [], []
    for p in extra_prefixes:
        p = os.path.abspath(p)
        if os.path.isdir(os.path.join(p, 'include')):
            incs.append('-I' + os.path.join(p, 'include'))
        libdir = os.path.join(p, 'lib64')
        if os.path.isdir(libdir):
            names = sorted(f[3:-3] for f in os.listdir(libdir) if f.startswith('lib') and f.endswith('.so'))
            if names:
                libs += ['-L' + libdir, '-Wl,-rpath,' + libdir, '-Wl,--no-as-needed']
                libs += ['-l' + n for n in names]
                libs += ['-Wl,--as-needed']
    return ['-DCMAKE_CXX_FLAGS=' + ' '.join(incs), '-DCMAKE_CXX_STANDARD_LIBRARIES=' + ' '.join(libs)]


def build_ggml(args, env, graph, logfile):
    bdir = os.path.join(args.work, 'ggml-graph-' + graph)
    cmd = ['cmake', '-S', args.ggml, '-B', bdir, '-DCMAKE_BUILD_TYPE=Release', '-DGGML_CANN=ON',
           '-DUSE_ACL_GRAPH=' + ('ON' if graph == 'on' else 'OFF'), '-DGGML_BUILD_TESTS=ON',
           '-DGGML_BUILD_EXAMPLES=OFF']
    if args.soc:
        cmd.append('-DSOC_TYPE=' + args.soc)
    cmd += extra_flags(args.extra_prefix)
    run(cmd, env=env, logfile=logfile)
    run(['cmake', '--build', bdir, '--target', 'test-backend-ops', '-j', str(args.jobs)], env=env,
        logfile=logfile)
    exe = os.path.join(bdir, 'bin', 'test-backend-ops')
    if not os.path.isfile(exe):
        raise HarnessError('the build made no %s' % exe)
    return exe


def list_ops(exe, env):
    r = subprocess.run([exe, '--list-ops'], env=env, stdout=subprocess.PIPE, check=False)
    ops = []
    for line in r.stdout.decode(errors='replace').split('\n'):
        m = re.match(r'^  ([A-Z0-9_]+)$', line)
        if m:
            ops.append(m.group(1))
    if not ops:
        raise HarnessError('test-backend-ops --list-ops listed no ops')
    return ops


def ecma_escape(s):
    """Escapes a literal for std::regex's ECMAScript grammar (test-backend-ops -p)."""
    return re.sub(r'([\\^$.*+?()\[\]{}|/])', r'\\\1', s)


def case_filter(op, only):
    """test-backend-ops arguments that select the cases of op whose parameters are in only (all when None):
    -o with full case names, which it compares as strings, or a -p regular expression when a name has
    parentheses (-o splits full names at the first closing one)."""
    if only is None:
        return ['-o', op]
    if any('(' in p or ')' in p for p in only):
        return ['-o', op, '-p', '^(?:' + '|'.join(ecma_escape(p) for p in only) + ')$']
    return ['-o', ','.join('%s(%s)' % (op, p) for p in only)]


def run_op(exe, env, mode, op, backend, timeout, only, logfh, params=None):
    """One test-backend-ops process for one op (only: the parameters of the cases to run, None for all;
    params: a regular expression on the parameters, test-backend-ops' -p, with only None).
    Returns (cases, tail, rc): the parsed cases and the other lines after the last one (see parse_output),
    and the exit status ('timeout' when it was killed)."""
    cmd = [exe, mode] + case_filter(op, only) + (['-p', params] if params and only is None else []) + ['-b', backend]
    logfh.write('$ ' + ' '.join(shlex.quote(c) for c in cmd) + '\n')
    logfh.flush()
    t0 = time.time()
    # The output goes to the log as it comes (a long op can be followed there); a timer kills a hung run.
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    chunks = []
    try:
        for raw in iter(proc.stdout.readline, b''):
            line = raw.decode(errors='replace')
            chunks.append(line)
            logfh.write(line)
            logfh.flush()
        rc = proc.wait()
    finally:
        timed_out = not timer.is_alive()
        timer.cancel()
        proc.stdout.close()
    if timed_out:
        chunks.append('\n[timed out after %d s]\n' % timeout)
        rc = 'timeout'
    text = ''.join(chunks)
    logfh.write('[exit %s after %.1f s]\n' % (rc, time.time() - t0))
    logfh.flush()
    cases, tail = parse_output(text, op, mode)
    return cases, tail, rc


def parse_output(text, op, mode):
    """Parses test-backend-ops console output for one op.

    test-backend-ops prints a case only when it is done: "  OP(params): " (flushed), then the result; what the
    comparison found comes before it on the same line ("[OP] ERR = 0.1 > 1e-07   OP(params): FAIL"). When the
    process dies, its last lines are the error text of the case after the last one printed, which may split
    that last case's line from its result.

    Returns (cases, tail): cases is a list of (device, params, status, detail) in order, with status ok, fail,
    unsupported, skipped or supported (support mode; perf mode: ok with the time in us per run as detail); tail
    the lines after the last case that are neither a result nor a summary line."""
    case = re.compile(r'^(.*?)  ' + re.escape(op) + r'\((.*)\): (.*)$')
    cases, device, pending, tail = [], None, None, []

    def result(params, prefix, res):
        res = res.strip()
        if mode == 'perf':
            pm = PERF.search(res)
            if pm:
                return (device, params, 'ok', float(pm.group(2)))
        if res.startswith('not supported') or res == 'NOT SUPPORTED':
            return (device, params, 'unsupported', '')
        if res == 'SUPPORTED':
            return (device, params, 'supported', '')
        if res.startswith('skipping'):
            return (device, params, 'skipped', '')
        if res.endswith('FAIL'):
            return (device, params, 'fail', (prefix.strip() + ' ' + res[:-4].strip()).strip())
        if res.endswith('OK'):
            return (device, params, 'ok', '')
        return None

    for line in ANSI.sub('', text).split('\n'):
        m = re.match(r'^Backend \d+/\d+: (\S+)', line)
        if m:
            # stdout is flushed only at a case's line: the error text of a process that dies in its first
            # case comes before this header, so tail is kept.
            device, pending = m.group(1), None
            continue
        m = case.match(line)
        if m:
            prefix, params, res = m.groups()
            r = result(params, prefix, res)
            tail = []
            if r:
                cases.append(r)
                pending = None
            else:
                pending = (params, prefix)
                if res.strip():
                    tail.append(res.strip())
            continue
        stripped = line.strip()
        r = result(pending[0], pending[1], stripped) if pending is not None and RESULT.match(stripped) else None
        if r:
            cases.append(r)
            pending = None
        elif stripped and not SUMMARY.match(stripped):
            tail.append(stripped)
    return cases, tail


def case_order(exe, env, op, backend, timeout, logfh):
    """The cases of an op in the order test mode runs them: support mode goes through the same list and prints
    every case without computing it."""
    cases, _, _ = run_op(exe, env, 'support', op, backend, timeout, None, logfh)
    return [c[1] for c in cases]


# Cases per process after an abort, and the longest -o argument (the kernel's limit is 128 KiB).
CHUNK_CASES = 200
CHUNK_CHARS = 64 * 1024


def test_op(args, exe, env, op, backend, logfh):
    """All cases of one op on one device. ggml aborts the process on any CANN error, so when a run dies the
    case it died in (the one after the last it printed: test mode prints every case of the op, in a fixed
    order) is recorded as aborted and the cases after it run in new processes, a chunk at a time.

    Returns a list of (params, status, detail), status ok, fail, unsupported, skipped, aborted or missing."""
    order, status = None, None
    only = None
    aborts = 0
    while True:
        cases, tail, rc = run_op(exe, env, 'test', op, backend, args.timeout, only, logfh)
        if order is None:
            if rc in (0, 1):
                return [(c[1], c[2], c[3]) for c in cases]
            order = case_order(exe, env, op, backend, args.timeout, logfh)
            status = [None] * len(order)
        names = set(only) if only is not None else None
        # The cases this run went through, in order; a name may stand for several cases.
        expected = [i for i, p in enumerate(order) if names is None or p in names]
        for i, c in zip(expected, cases):
            if status[i] is None:
                status[i] = (c[1], c[2], c[3])
        if rc not in (0, 1):
            if len(cases) < len(expected):
                i = expected[len(cases)]
                status[i] = (order[i], 'aborted', abort_detail(tail, rc))
                if getattr(args, "strict", False) or client_defect(op, order[i]) is None:
                    aborts += 1
                # test-backend-ops selects cases by name only: a later case with the same name as this one
                # would always be preceded by it, and can never run.
                for j, p in enumerate(order):
                    if p == order[i] and status[j] is None:
                        status[j] = (p, 'missing', 'not run: an earlier case of the same name aborted, and '
                                     'test-backend-ops selects cases by name')
            else:
                # Died after its last case (teardown): nothing left to attribute it to.
                status.append(('', 'aborted', 'exit status %s after the last case: %s' % (rc, abort_detail(tail, rc))))
                order.append('')
                aborts += 1
        for i in expected[len(cases):]:
            if status[i] is None and rc in (0, 1):
                status[i] = (order[i], 'missing', 'not run by a process that ended normally')
        left = [i for i, st in enumerate(status) if st is None]
        if not left:
            return status
        if aborts >= args.max_aborts:
            for i in left:
                status[i] = (order[i], 'missing', 'not run: more than %d aborts in this op' % args.max_aborts)
            return status
        only, size = [], 0
        for i in left:
            if len(only) >= CHUNK_CASES or size > CHUNK_CHARS:
                break
            if order[i] not in only:
                only.append(order[i])
                size += len(op) + len(order[i]) + 3


def abort_detail(tail, rc):
    """The informative lines of a dead case: ggml's CANN error block (message with aclGetRecentErrMsg, where,
    the call), GGML_ASSERT lines, and lines from overlay stubs; else the first lines printed."""
    keep = []
    for i, line in enumerate(tail):
        if line.startswith('CANN error:'):
            keep += tail[i:i + 3]
        elif 'GGML_ASSERT' in line or line.startswith('stub:'):
            keep.append(line)
    keep = keep or tail[:4]
    return ' | '.join(keep) if keep else 'exit status %s' % rc


def print_table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print('\n' + title)
    fmt = lambda r: '  '.join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in
                              enumerate(zip(r, widths)))
    print(fmt(header))
    print('  '.join('-' * w for w in widths))
    for r in rows:
        print(fmt(r))


def test_mode(args, exe, env, graph, logfh):
    ops = args.ops.split(',') if args.ops else list_ops(exe, env)
    devices = ['CANN%d' % d for d in range(args.devices)]
    keys = ('ok', 'fail', 'aborted', 'missing', 'client', 'unsupported')
    rows, failures, client, total = [], [], {}, dict((k, 0) for k in keys)
    for op in ops:
        for dev in devices:
            results = test_op(args, exe, env, op, dev, logfh)
            if not args.strict:
                # A known ggml-side defect that did not pass is counted apart (a passing one stays passed).
                for j, (params, st, detail) in enumerate(results):
                    reason = client_defect(op, params) if st in ('fail', 'aborted', 'missing') else None
                    if reason:
                        results[j] = (params, 'client', detail)
                        client.setdefault((op, reason), []).append(st)
            n = dict((k, sum(1 for r in results if r[1] == k)) for k in keys)
            log('%s %s: %d passed, %d failed, %d aborted, %d not run, %d ggml-side, %d not supported' % (
                op, dev, n['ok'], n['fail'], n['aborted'], n['missing'], n['client'], n['unsupported']))
            if not results:
                continue
            rows.append([op, dev] + [n[k] for k in keys])
            for k in keys:
                total[k] += n[k]
            for params, st, detail in results:
                if st in ('fail', 'aborted', 'missing'):
                    failures.append('%s %s(%s): %s%s' % (dev, op, params, '' if st == 'fail' else st.upper() + ': ',
                                                          detail or 'FAIL'))
    print_table('test-backend-ops test, USE_ACL_GRAPH=%s: cases per op' % graph.upper(),
                ['op', 'device', 'passed', 'failed', 'aborted', 'not run', 'ggml-side', 'not supported'],
                rows + [['TOTAL', ''] + [total[k] for k in keys]])
    if client:
        print('\nggml-side defects (cases that fail on any CANN device; not counted, --strict counts them):')
        for (op, reason), sts in sorted(client.items()):
            print('  %s: %d cases (%s): %s' % (op, len(sts), ', '.join(
                '%d %s' % (sts.count(k), k) for k in ('fail', 'aborted', 'missing') if sts.count(k)), reason))
    if failures:
        print('\nFailing cases:')
        for f in failures:
            print('  ' + f)
    ok = total['fail'] == 0 and total['aborted'] == 0 and total['missing'] == 0 and total['ok'] > 0
    print('\nggml client, USE_ACL_GRAPH=%s: %s' % (graph.upper(), 'PASS' if ok else 'FAIL'))
    return ok


def perf_group(op, params):
    if op == 'MUL_MAT':
        m = re.search(r'type_a=([a-z0-9_]+)', params)
        return 'MUL_MAT ' + (m.group(1) if m else '?')
    return op


def perf_mode(args, exe, env, logfh):
    """Perf mode on CANN0 and on ggml's CPU backend. The two alternate op by op, and each round swaps which
    goes first, so a change in the machine's load falls on both; a case's time is its median over the rounds."""
    samples = {'CANN0': {}, 'CPU': {}}
    ops = [op for op in PERF_OPS if not args.ops or op in args.ops.split(',')]
    for rnd in range(args.perf_rounds):
        for i, op in enumerate(ops):
            order = ('CANN0', 'CPU') if (rnd + i) % 2 == 0 else ('CPU', 'CANN0')
            for backend in order:
                cases, tail, rc = run_op(exe, env, 'perf', op, backend, args.timeout, None, logfh,
                                         args.perf_params)
                if rc not in (0, 1):
                    last = cases[-1][1] if cases else 'the start'
                    log('perf %s on %s: exit status %s after %s: %s' % (op, backend, rc, last,
                                                                      abort_detail(tail, rc)))
                for dev, params, status, us in cases:
                    if status == 'ok':
                        samples[backend].setdefault((op, params), []).append(us)
    results = {b: {k: statistics.median(v) for k, v in samples[b].items()} for b in samples}
    groups = {}
    rows = []
    for key in sorted(set(results['CANN0']) & set(results['CPU'])):
        cann, cpu = results['CANN0'][key], results['CPU'][key]
        ratio = cpu / cann if cann > 0 else float('inf')
        groups.setdefault(perf_group(*key), []).append(ratio)
        if args.perf_cases:
            rows.append(['%s(%s)' % key, '%.2f' % cann, '%.2f' % cpu, '%.2f' % ratio])
    if rows:
        print_table('perf per case (us/run; ratio = CPU / CANN0, above 1: CANN0 faster)',
                    ['case', 'CANN0 us', 'CPU us', 'ratio'], rows)
    summary = []
    names = [('MUL_MAT ' + t) if op == 'MUL_MAT' else op for op in ops
             for t in (PERF_MUL_MAT_TYPES if op == 'MUL_MAT' else [''])]
    names += sorted(g for g in groups if g not in names)
    for g in names:
        rs = groups.get(g, [])
        if rs:
            geo = math.exp(sum(math.log(max(r, 1e-12)) for r in rs) / len(rs))
            summary.append([g, len(rs), '%.2f' % geo, '%.2f' % min(rs), '%.2f' % max(rs)])
        else:
            summary.append([g, 0, '-', '-', '-'])
    print_table('perf: CPU time / CANN0 time per op (geometric mean over the cases both ran)',
                ['op', 'cases', 'ratio', 'min', 'max'], summary)
    missing = set(results['CPU']) - set(results['CANN0'])
    if missing:
        print('\n%d perf cases ran on CPU but not on CANN0 (not supported or aborted)' % len(missing))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--ggml', required=True, help='ggml source tree (github ggml-org/ggml)')
    ap.add_argument('--prefix', help='installed cannon (a CANN toolkit prefix); default: install the build '
                    'given by --build into WORK/cannon-prefix')
    ap.add_argument('--build', default=os.path.join(REPO, 'build'), help='cannon build folder to install '
                    '(default: %(default)s)')
    ap.add_argument('--work', default=os.path.join(os.environ.get('TMPDIR', '/tmp'), 'cannon-ggml-client'),
                    help='folder for the ggml builds and logs, outside the cannon tree (default: %(default)s)')
    ap.add_argument('--graph', choices=['on', 'off'], default='off', help='build ggml with USE_ACL_GRAPH')
    ap.add_argument('--devices', type=int, choices=[1, 2], default=1,
                    help='1: test CANN0; 2: two virtual devices, each op is tested on CANN0 and on CANN1')
    ap.add_argument('--perf', action='store_true', help='also run the perf mode on CANN0 and CPU (speed list)')
    ap.add_argument('--strict', action='store_true',
                    help='count the known ggml-side defects (CLIENT_DEFECTS) as failures')
    ap.add_argument('--perf-rounds', type=int, default=3,
                    help='with --perf, rounds of the perf mode (each case: the median over the rounds)')
    ap.add_argument('--perf-params', metavar='REGEX',
                    help='with --perf, only the cases whose parameters match (test-backend-ops -p)')
    ap.add_argument('--perf-cases', action='store_true', help='with --perf, also print the ratio of every case')
    ap.add_argument('--no-test', action='store_true', help='skip the test mode (e.g. with --perf)')
    ap.add_argument('--ops', help='comma-separated ggml ops to test (default: all that --list-ops names); with '
                    '--perf it also narrows the speed list')
    ap.add_argument('--soc', help='pass -DSOC_TYPE to ggml instead of its npu-smi detection')
    ap.add_argument('--extra-prefix', action='append', default=[],
                    help='overlay folder with include/ and lib64/*.so added to the ggml build only '
                    '(e.g. declarations cannon does not ship yet); repeatable')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='build jobs (default: %(default)s)')
    ap.add_argument('--timeout', type=int, default=3600, help='seconds per test-backend-ops process')
    ap.add_argument('--max-aborts', type=int, default=50,
                    help='aborted cases per op and device before the rest of the op is given up')
    args = ap.parse_args()

    args.ggml = os.path.abspath(args.ggml)
    args.work = os.path.abspath(args.work)
    try:
        if not os.path.isfile(os.path.join(args.ggml, 'src', 'ggml-cann', 'CMakeLists.txt')):
            raise HarnessError('%s is not a ggml source tree (no src/ggml-cann)' % args.ggml)
        if inside(args.work, REPO):
            raise HarnessError('--work must be outside the cannon tree (%s)' % REPO)
        os.makedirs(args.work, exist_ok=True)
        logfile = os.path.join(args.work, 'build.log')
        prefix = os.path.abspath(args.prefix) if args.prefix else os.path.join(args.work, 'cannon-prefix')
        if not args.prefix:
            install_cannon(os.path.abspath(args.build), prefix, logfile)
        env = toolkit_env(prefix)
        if args.extra_prefix:
            libs = [os.path.join(os.path.abspath(p), 'lib64') for p in args.extra_prefix]
            env['LD_LIBRARY_PATH'] = ':'.join(libs + [env.get('LD_LIBRARY_PATH', '')]).rstrip(':')
        env.setdefault('CANNON_CPU_DEVICES', str(args.devices))
        # ggml's abort path attaches gdb for a backtrace unless this is set: slow, and the harness reports
        # the failing call from ggml's own error lines.
        env.setdefault('GGML_NO_BACKTRACE', '1')
        soc = args.soc or detect_soc(env)
        log('cannon prefix %s, SoC %s%s' % (prefix, soc, '' if args.soc else ' (npu-smi)'))
        exe = build_ggml(args, env, args.graph, logfile)
        log('built %s' % exe)
        ok = True
        runlog = os.path.join(args.work, 'test-backend-ops-graph-%s.log' % args.graph)
        with open(runlog, 'a') as logfh:
            logfh.write('=== %s: %s\n' % (time.strftime('%Y-%m-%d %H:%M:%S'), ' '.join(sys.argv[1:])))
            log('test-backend-ops output (appended): %s' % runlog)
            if not args.no_test:
                ok = test_mode(args, exe, env, args.graph, logfh)
            if args.perf:
                perf_mode(args, exe, env, logfh)
        return 0 if ok else 1
    except HarnessError as e:
        print('[ggml-client] error: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())

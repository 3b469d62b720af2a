#!/usr/bin/python3
"""Tests of the ggml client harness that need no ggml tree: the parsing of test-backend-ops output, the
restart after an aborted case (against a stand-in program), the regex escaping and the overlay flags.
Standard library only: python3 test_harness.py."""

import io
import os
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

TEST_OUTPUT = '''Testing 2 devices

Backend 1/2: CANN0
  Device description: Ascend910B3
  Device memory: 8192 MB (8192 MB free)

  ADD(type=f32,ne=[10,5,4,3],nr=[1,1,1,1],nf=1): \x1b[1;32mOK\x1b[0m
[ADD] ERR = 0.001953125 > 0.000000100   ADD(type=f16,ne=[10,5,4,3],nr=[2,1,1,1],nf=1): \x1b[1;31mFAIL\x1b[0m
  ADD(type=bf16,ne=[1,1,8,1],nr=[1,1,1,1],nf=1): not supported [CANN0] 
[ADD] NaN at index 3 (CANN0=nan CPU=1.000000)   ADD(type=f32,ne=[4,3,2,1],nr=[1,1,1,1],nf=2): \x1b[1;31mFAIL\x1b[0m
  MUL(type=f32,ne=[1,1,1,1],nr=[1,1,1,1],nf=1): \x1b[1;32mOK\x1b[0m
  2/4 tests passed
  Backend CANN0: \x1b[1;31mFAIL\x1b[0m
Backend 2/2: CPU
  Skipping CPU backend
'''

ABORT_OUTPUT = '''Backend 1/1: CANN0
  Device description: Ascend910B3

  MUL_MAT(type_a=f16,type_b=f32,m=16,n=1,k=256,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1): \x1b[1;32mOK\x1b[0m
  MUL_MAT(type_a=f32,type_b=f32,m=16,n=1,k=256,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1): stub: aclnnMv called
CANN error: EZ1001: self has an unsupported dtype
  current device: 0, in function ggml_cann_mul_mat at aclnn_ops.cpp:2155
  aclnnMvGetWorkspaceSize(...)
\x1b[1;32mOK\x1b[0m
/src/ggml-cann/ggml-cann.cpp:70: CANN error
'''

# The same with a "not supported" case as the last one printed.
ABORT_UNSUPPORTED = '''Backend 1/1: CANN0
  GET_ROWS(type=q5_1,n=256,m=5,r=4,be1=7,be2=1,v=1): CANN error: aclnnMul: other is NULL
  current device: 0, in function aclnn_mul at aclnn_ops.cpp:338
not supported [CANN0] 
/src/ggml-cann/ggml-cann.cpp:70: CANN error
'''

PERF_OUTPUT = '''Backend 1/1: CANN0
  Device description: Ascend910B3

  SOFT_MAX(type=f32,ne=[4096,4096,5,1],mask=0,sinks=0,m_prec=f32,nr23=[1,1],scale=1.000000,max_bias=0.000000,inplace=0):                  12 runs - 84561.17 us/run -   327680 kB/run - \x1b[1;34m   3.70 GB/s\x1b[0m
  SOFT_MAX(type=f32,ne=[77,4096,5,1],mask=0): not supported
  MUL_MAT(type_a=q4_0,type_b=f32,m=4096,n=1,k=14336,bs=[1,1],nr=[1,1],per=[0,1,2,3],k_v=0,o=1):      23 runs - 44130.61 us/run - 117.44 MFLOP/run - \x1b[1;34m  2.66 GFLOPS\x1b[0m
'''

# A stand-in for test-backend-ops: runs the cases of the op given with -o (an op name or full case names) that
# the -p regex keeps, printing each when it is done, and dies in the ones whose parameters
# contain "bad" with the error on stderr before the last result reaches stdout, as ggml does. Two cases have
# the same parameters, as some of ggml's do. Support mode lists the cases.
FAKE = '''#!/usr/bin/python3
import os, re, sys
a = sys.argv[1:]
sel = a[a.index('-o') + 1]
op = sel.split('(')[0]
names = set(re.findall(r'\\(([^)]*)\\)', sel)) if '(' in sel else None
pat = a[a.index('-p') + 1] if '-p' in a else ''
print('Backend 1/1: CANN0')
for params in os.environ.get('FAKE_CASES', 'x=1,x=bad1,x=2,x=bad2,x=3,x=3').split(','):
    if (pat and not re.search(pat, params)) or (names is not None and params not in names):
        continue
    if a[0] == 'support':
        print('  %s(%s): SUPPORTED' % (op, params))
        continue
    if 'bad' in params:
        sys.stderr.write('CANN error: aclnnAdd returned 161002\\n')
        sys.stderr.flush()
        sys.stdout.flush()
        os.abort()
    print('  %s(%s): ' % (op, params), end='', flush=True)
    print('OK')
print('  Backend CANN0: OK')
'''


def write_fake(folder):
    """The stand-in test-backend-ops, written as an executable into folder; returns its path."""
    exe = os.path.join(folder, 'test-backend-ops')
    with open(exe, 'w') as f:
        f.write(FAKE)
    os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
    return exe


class ParseTest(unittest.TestCase):
    def test_test_mode(self):
        cases, tail = harness.parse_output(TEST_OUTPUT, 'ADD', 'test')
        self.assertEqual(tail, ['MUL(type=f32,ne=[1,1,1,1],nr=[1,1,1,1],nf=1): OK'])  # another op's line
        self.assertEqual([c[2] for c in cases], ['ok', 'fail', 'unsupported', 'fail'])
        self.assertEqual(set(c[0] for c in cases), {'CANN0'})
        self.assertEqual(cases[0][1], 'type=f32,ne=[10,5,4,3],nr=[1,1,1,1],nf=1')
        self.assertEqual(cases[1][3], '[ADD] ERR = 0.001953125 > 0.000000100')
        self.assertIn('NaN at index 3', cases[3][3])
        # The cases of another op in the same output are not counted for this one.
        mul, _ = harness.parse_output(TEST_OUTPUT, 'MUL', 'test')
        self.assertEqual([(c[1], c[2]) for c in mul], [('type=f32,ne=[1,1,1,1],nr=[1,1,1,1],nf=1', 'ok')])

    def test_abort(self):
        # The last case printed passed; the error text after it belongs to the next case.
        cases, tail = harness.parse_output(ABORT_OUTPUT, 'MUL_MAT', 'test')
        self.assertEqual([c[2] for c in cases], ['ok', 'ok'])
        self.assertEqual(cases[1][1], 'type_a=f32,type_b=f32,m=16,n=1,k=256,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1')
        self.assertEqual(tail[0], 'stub: aclnnMv called')
        self.assertIn('CANN error: EZ1001: self has an unsupported dtype', tail)
        self.assertEqual(tail[-1], '/src/ggml-cann/ggml-cann.cpp:70: CANN error')
        self.assertEqual(harness.abort_detail(tail, -6),
                         'stub: aclnnMv called | CANN error: EZ1001: self has an unsupported dtype | '
                         'current device: 0, in function ggml_cann_mul_mat at aclnn_ops.cpp:2155 | '
                         'aclnnMvGetWorkspaceSize(...)')
        self.assertEqual(harness.abort_detail([], -6), 'exit status -6')

    def test_abort_after_unsupported(self):
        cases, tail = harness.parse_output(ABORT_UNSUPPORTED, 'GET_ROWS', 'test')
        self.assertEqual([(c[1], c[2]) for c in cases], [('type=q5_1,n=256,m=5,r=4,be1=7,be2=1,v=1', 'unsupported')])
        self.assertEqual(harness.abort_detail(tail, -6), 'CANN error: aclnnMul: other is NULL | '
                         'current device: 0, in function aclnn_mul at aclnn_ops.cpp:338 | '
                         '/src/ggml-cann/ggml-cann.cpp:70: CANN error')

    def test_abort_in_the_first_case(self):
        # The buffered header reaches the pipe after the error text.
        text = ('CANN error: aclnnCat: out dtype INT4 is not supported\n  current device: 0, in function aclnn_concat\n'
                '  aclnnCatGetWorkspaceSize(...)\nTesting 2 devices\n\nBackend 1/2: CANN0\n'
                '  Device description: Ascend910B3\n\n/src/ggml-cann/ggml-cann.cpp:70: CANN error\n')
        cases, tail = harness.parse_output(text, 'CONCAT', 'test')
        self.assertEqual(cases, [])
        self.assertEqual(harness.abort_detail(tail, -6), 'CANN error: aclnnCat: out dtype INT4 is not supported | '
                         'current device: 0, in function aclnn_concat | aclnnCatGetWorkspaceSize(...)')

    def test_perf_mode(self):
        soft, _ = harness.parse_output(PERF_OUTPUT, 'SOFT_MAX', 'perf')
        self.assertEqual([(c[2], c[3]) for c in soft], [('ok', 84561.17), ('unsupported', '')])
        mm, _ = harness.parse_output(PERF_OUTPUT, 'MUL_MAT', 'perf')
        self.assertEqual(mm[0][3], 44130.61)
        self.assertEqual(harness.perf_group('MUL_MAT', mm[0][1]), 'MUL_MAT q4_0')
        self.assertEqual(harness.perf_group('SOFT_MAX', soft[0][1]), 'SOFT_MAX')

    def test_ecma_escape(self):
        self.assertEqual(harness.ecma_escape('ne=[4,3],f(x)=a.b|c*d+e?^$\\'),
                         'ne=\\[4,3\\],f\\(x\\)=a\\.b\\|c\\*d\\+e\\?\\^\\$\\\\')


class RestartTest(unittest.TestCase):
    def test_aborted_cases_fail_and_the_rest_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            exe = write_fake(tmp)

            class Args:
                timeout = 60
                max_aborts = 5
            log = io.StringIO()
            results = harness.test_op(Args, exe, dict(os.environ), 'ADD', 'CANN0', log)
            self.assertEqual([(r[0], r[1]) for r in results],
                             [('x=1', 'ok'), ('x=bad1', 'aborted'), ('x=2', 'ok'), ('x=bad2', 'aborted'),
                              ('x=3', 'ok'), ('x=3', 'ok')])
            self.assertEqual(results[1][2], 'CANN error: aclnnAdd returned 161002')
            # The whole op, the case list, then the cases after each abort: nothing runs twice.
            cmds = [l for l in log.getvalue().split('\n') if l.startswith('$ ')]
            self.assertEqual(len(cmds), 4)
            self.assertIn(' support -o ADD -b CANN0', cmds[1])
            self.assertIn(" -o 'ADD(x=2),ADD(x=bad2),ADD(x=3)' -b CANN0", cmds[2])
            self.assertIn(" -o 'ADD(x=3)' -b CANN0", cmds[3])

            Args.max_aborts = 1
            results = harness.test_op(Args, exe, dict(os.environ), 'ADD', 'CANN0', io.StringIO())
            self.assertEqual([r[1] for r in results], ['ok', 'aborted', 'missing', 'missing', 'missing', 'missing'])
            self.assertIn('more than 1 aborts', results[2][2])

    def test_same_name_as_an_aborted_case(self):
        """A case named like an aborted one can never be selected apart from it: it is reported missing at
        once instead of rerunning the aborted case until the abort limit (and a case named like a done one
        runs again harmlessly)."""
        with tempfile.TemporaryDirectory() as tmp:
            exe = write_fake(tmp)

            class Args:
                timeout = 60
                max_aborts = 5
            env = dict(os.environ, FAKE_CASES='x=3,x=bad1,x=2,x=bad1,x=3')
            log = io.StringIO()
            results = harness.test_op(Args, exe, env, 'ADD', 'CANN0', log)
            self.assertEqual([(r[0], r[1]) for r in results],
                             [('x=3', 'ok'), ('x=bad1', 'aborted'), ('x=2', 'ok'), ('x=bad1', 'missing'),
                              ('x=3', 'ok')])
            self.assertIn('same name', results[3][2])
            cmds = [l for l in log.getvalue().split('\n') if l.startswith('$ ')]
            self.assertEqual(len(cmds), 3)

    def test_client_defects_do_not_count_toward_the_abort_limit(self):
        """Aborts in known ggml-side cases (CLIENT_DEFECTS) leave the abort limit to the others, unless
        --strict."""
        saved = harness.CLIENT_DEFECTS
        harness.CLIENT_DEFECTS = [('ADD', r'^x=bad', 'a test reason')]
        try:
            with tempfile.TemporaryDirectory() as tmp:
                exe = write_fake(tmp)

                class Args:
                    timeout = 60
                    max_aborts = 1
                    strict = False
                results = harness.test_op(Args, exe, dict(os.environ), 'ADD', 'CANN0', io.StringIO())
                self.assertEqual([r[1] for r in results], ['ok', 'aborted', 'ok', 'aborted', 'ok', 'ok'])
                self.assertEqual(harness.client_defect('ADD', 'x=bad2'), 'a test reason')
                self.assertIsNone(harness.client_defect('ADD', 'x=2'))
                self.assertIsNone(harness.client_defect('MUL', 'x=bad2'))
                Args.strict = True
                results = harness.test_op(Args, exe, dict(os.environ), 'ADD', 'CANN0', io.StringIO())
                self.assertEqual([r[1] for r in results], ['ok', 'aborted', 'missing', 'missing', 'missing',
                                                          'missing'])
        finally:
            harness.CLIENT_DEFECTS = saved

    def test_known_defect_patterns(self):
        self.assertIsNotNone(harness.client_defect('CONCAT', 'type=q4_0,ne_a=[11,12,13,14],ne_b_d=7,dim=0,v=0'))
        self.assertIsNotNone(harness.client_defect('CONCAT', 'type=q8_0,ne_a=[128,12,13,14],ne_b_d=7,dim=1,v=8'))
        self.assertIsNone(harness.client_defect('CONCAT', 'type=f32,ne_a=[11,12,13,14],ne_b_d=7,dim=0,v=0'))
        self.assertIsNone(harness.client_defect('CONCAT', 'type=i8,ne_a=[11,12,13,14],ne_b_d=7,dim=0,v=0'))
        self.assertIsNotNone(harness.client_defect(
            'SET_ROWS', 'type_src=f16,type_dst=f32,type_idx=i64,ne=[256,5,1,3],nr23=[1,1],r=1,v=0'))
        self.assertIsNone(harness.client_defect(
            'SET_ROWS', 'type_src=f32,type_dst=f32,type_idx=i64,ne=[256,5,1,3],nr23=[1,1],r=1,v=0'))
        self.assertIsNone(harness.client_defect(
            'SET_ROWS', 'type_src=f16,type_dst=f16,type_idx=i64,ne=[256,5,1,3],nr23=[1,1],r=1,v=0'))

    def test_case_filter(self):
        self.assertEqual(harness.case_filter('ADD', None), ['-o', 'ADD'])
        self.assertEqual(harness.case_filter('ADD', ['a=[1,2]', 'b=3']), ['-o', 'ADD(a=[1,2]),ADD(b=3)'])
        self.assertEqual(harness.case_filter('ADD', ['f(x)=1']), ['-o', 'ADD', '-p', '^(?:f\\(x\\)=1)$'])


class FlagsTest(unittest.TestCase):
    def test_extra_prefix(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, 'include'))
            os.makedirs(os.path.join(tmp, 'lib64'))
            open(os.path.join(tmp, 'lib64', 'libstub.so'), 'w').close()
            flags = harness.extra_flags([tmp])
            self.assertEqual(flags[0], '-DCMAKE_CXX_FLAGS=-I' + os.path.join(tmp, 'include'))
            self.assertIn('-lstub', flags[1])
            self.assertIn('-L' + os.path.join(tmp, 'lib64'), flags[1])
        self.assertEqual(harness.extra_flags([]), [])

    def test_inside(self):
        self.assertTrue(harness.inside(os.path.join(harness.REPO, 'build', 'x'), harness.REPO))
        self.assertFalse(harness.inside(harness.REPO + '-other', harness.REPO))


if __name__ == '__main__':
    unittest.main()

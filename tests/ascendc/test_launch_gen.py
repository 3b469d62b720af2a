"""ascendc_launch_gen.py on sources written to stress its parsing: which functions are entries,
how each parameter is declared on the host and passed on, what <<<>>> rewriting touches.
Standard library only: python3 test_launch_gen.py <path of ascendc_launch_gen.py>."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

GEN = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "tools", "ascendc", "ascendc_launch_gen.py")
spec = importlib.util.spec_from_file_location("gen", GEN)
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

SOURCE = r'''
#include "kernel_operator.h"
// extern "C" __global__ __aicore__ void commented(GM_ADDR x) { }
/* extern "C" __global__ __aicore__ void blocked(GM_ADDR x) { } */
static const char *s = "extern \"C\" __global__ __aicore__ void quoted(GM_ADDR x) { k<<<1, 0, 0>>>(x); }";
__aicore__ inline void helper(GM_ADDR x) { }
extern "C" __global__ __aicore__ void first(GM_ADDR x, __gm__ float *y, const Tiling &t, uint64_t n,
                                            std::pair<int, int> p, GM_ADDR)
{
}
__global__ __vector__ void second(void)
{
}
#if A
extern "C" __global__ __aicore__ void third(GM_ADDR x) { }
#else
extern "C" __global__ __aicore__ void third(GM_ADDR x) { }
#endif
void run(void *stream, uint8_t *x)
{
    first<<<8, nullptr, stream>>>(x, x, Tiling{}, 1, {}, x); // first<<<not, a, call>>>
}
'''


class Parse(unittest.TestCase):
    def setUp(self):
        self.entries = {e.name: e for e in gen.find_entries(SOURCE)}

    def test_entries(self):
        self.assertEqual(sorted(self.entries), ["first", "second", "third"])

    def test_params(self):
        p = self.entries["first"].params
        self.assertEqual([x.host for x in p], ["void* x", "void* y", "Tiling* t", "uint64_t n",
                                               "std::pair<int, int>* p", "void* arg5"])
        self.assertEqual([x.arg for x in p], ["x", "y", "*t", "n", "*p", "arg5"])
        self.assertEqual(self.entries["second"].params, [])

    def test_prototype(self):
        self.assertEqual(self.entries["second"].prototype(),
                         'extern "C" uint32_t aclrtlaunch_second(uint32_t blockDim, aclrtStream stream)')

    def test_rewrite(self):
        out = gen.rewrite_chevrons(SOURCE)
        self.assertIn('::cannon_ascendc::ChevronLaunch<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>'
                      '("first", first, 8, nullptr, stream)(x, x', out)
        self.assertIn("k<<<1, 0, 0>>>(x)", out)  # in a string
        self.assertIn("// first<<<not, a, call>>>", out)  # in a comment
        self.assertEqual(out.count("\n"), SOURCE.count("\n"))


class Command(unittest.TestCase):
    def run_gen(self, *args):
        return subprocess.run([sys.executable, GEN] + list(args), capture_output=True, text=True)

    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.cpp")
            with open(src, "w") as f:
                f.write(SOURCE)
            r = self.run_gen("--source", src, "--include-dir", os.path.join(d, "inc"), "--stub",
                             os.path.join(d, "stub.cpp"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(os.path.join(d, "inc"))),
                             ["aclrtlaunch_first.h", "aclrtlaunch_second.h", "aclrtlaunch_third.h"])
            with open(os.path.join(d, "stub.cpp")) as f:
                stub = f.read()
            self.assertIn('#line 1 "%s"' % src, stub)
            self.assertIn("if (t == nullptr)", stub)
            self.assertIn('LaunchCores<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>("first", first, '
                          'blockDim, stream, x, y, *t, n, *p, arg5)', stub)
            # Unchanged content is not rewritten.
            before = os.stat(os.path.join(d, "stub.cpp")).st_mtime_ns
            os.utime(os.path.join(d, "stub.cpp"), ns=(1, 1))
            self.run_gen("--source", src, "--include-dir", os.path.join(d, "inc"), "--stub",
                         os.path.join(d, "stub.cpp"))
            self.assertEqual(os.stat(os.path.join(d, "stub.cpp")).st_mtime_ns, 1, before)

    def test_errors(self):
        r = self.run_gen("--list", "--source", "/nonexistent/k.cpp")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.cpp")
            with open(src, "w") as f:
                f.write("void f() {}\n")
            r = self.run_gen("--list", "--source", src)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no kernel entry", r.stderr)
            r = self.run_gen("--source", src, "--rewrite", os.path.join(d, "out.cpp"))
            self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()

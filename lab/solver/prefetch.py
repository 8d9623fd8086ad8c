"""A cache hint for the kernels: fetch an array's cache line before it is read.

The full-game walks read the opponent's strategy sums at a betting node (and the node's
storage stamps) only in their backward pass, after its strategies and reach were computed
in the forward pass. Those entries were last touched an iteration ago, so each read waited
for memory, one miss after another: a sixth of an iteration. The forward pass now asks for
them with :func:`prefetch_range` (``lab.solver.fullgame.betting.prepare_node``), and the
backward pass finds them in the cache. A prefetch changes no number, and it never faults,
even past an array's end.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

LINE = 16
"""Entries of 4 bytes per 64-byte cache line: one hint a line (16-bit entries get two)."""


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint the cache line holding ``arr[idx]`` into every cache level (LLVM's
    ``llvm.prefetch``, read, high locality); no effect on any result."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = builder.gep(ary.data, [context.cast(builder, args[1], idxty, types.intp)])
        ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch_range(arr, start, count):
    """Hint the cache lines of ``arr[start:start + count]``."""
    for x in range(start, start + count, LINE):
        prefetch(arr, x)
    if count > 0:
        prefetch(arr, start + count - 1)

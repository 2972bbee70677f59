"""PTX data types: ``from ptxpp.types import f32, u32``. Each is a ``ptxpp.DType``."""

from ._core import DType

b8, b16, b32, b64, b128 = DType.b8, DType.b16, DType.b32, DType.b64, DType.b128
u8, u16, u32, u64 = DType.u8, DType.u16, DType.u32, DType.u64
s8, s16, s32, s64 = DType.s8, DType.s16, DType.s32, DType.s64
f16, f16x2, bf16, bf16x2 = DType.f16, DType.f16x2, DType.bf16, DType.bf16x2
tf32, f32, f64 = DType.tf32, DType.f32, DType.f64
e4m3, e5m2, b1, pred = DType.e4m3, DType.e5m2, DType.b1, DType.pred

__all__ = ["DType", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
           "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "e4m3", "e5m2", "b1", "pred"]

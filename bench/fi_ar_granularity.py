#!/usr/bin/env python3
"""Print the two granularities FlashInfer's ``SymmDeviceMemory`` rounds each all-reduce fusion buffer to (helper fi20).

flashinfer 0.6.4–0.6.8.post1 ``comm/mnnvl.py SymmDeviceMemory._get_allocation_prop``: size = buffer + 2 KiB signal
pad, rounded up to ``cuMemGetAllocationGranularity(RECOMMENDED)``, then to ``cuMulticastGetGranularity(RECOMMENDED)``
(queried even with multicast off).  tpkit charges the first rounding only (``engines/vllm/baseline.py
fi_allreduce_fusion_workspace``); the second is a driver value the source does not give.  One call on any GPU:

    python3 bench/fi_ar_granularity.py            # no torch or FlashInfer needed: libcuda through ctypes

If the multicast granularity printed is larger than 2 MiB, each of the three buffers grows to a multiple of it.
"""

from __future__ import annotations

import ctypes
import sys

MiB = 1 << 20


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _McProp(ctypes.Structure):
    _fields_ = [("numDevices", ctypes.c_uint), ("size", ctypes.c_size_t), ("handleTypes", ctypes.c_ulonglong),
                ("flags", ctypes.c_ulonglong)]


def main() -> int:
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        print(f"libcuda.so.1 not found ({e}); run this on a machine with an NVIDIA driver")
        return 1
    if cu.cuInit(0) != 0:
        print("cuInit failed")
        return 1
    dev = ctypes.c_int()
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    name = ctypes.create_string_buffer(128)
    cu.cuDeviceGetName(name, 128, dev)
    major, minor = ctypes.c_int(), ctypes.c_int()
    cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # COMPUTE_CAPABILITY_MAJOR
    cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
    mc_supported = ctypes.c_int()
    cu.cuDeviceGetAttribute(ctypes.byref(mc_supported), 132, dev)  # CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
    print(f"device 0: {name.value.decode()} SM {major.value}.{minor.value}, multicast supported {mc_supported.value}")
    for handle, label in ((1, "POSIX_FD"), (8, "FABRIC")):
        prop = _AllocProp(type=1, requestedHandleTypes=handle, location=_Location(type=1, id=dev.value))
        prop.allocFlags.gpuDirectRDMACapable = 1
        gran = ctypes.c_size_t()
        rc = cu.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), 1)  # RECOMMENDED
        alloc = f"{gran.value / MiB:g} MiB" if rc == 0 else f"error {rc}"
        for tp in (2, 4, 8):
            mc = _McProp(numDevices=tp, size=130 * MiB, handleTypes=handle, flags=0)
            mgran, mmin = ctypes.c_size_t(), ctypes.c_size_t()
            rc1 = cu.cuMulticastGetGranularity(ctypes.byref(mgran), ctypes.byref(mc), 1)  # RECOMMENDED
            rc0 = cu.cuMulticastGetGranularity(ctypes.byref(mmin), ctypes.byref(mc), 0)  # MINIMUM
            rec = f"{mgran.value / MiB:g} MiB" if rc1 == 0 else f"error {rc1}"
            mini = f"{mmin.value / MiB:g} MiB" if rc0 == 0 else f"error {rc0}"
            print(f"handle {label}: allocation granularity (recommended) {alloc}; tp {tp}: multicast granularity "
                  f"recommended {rec}, minimum {mini}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

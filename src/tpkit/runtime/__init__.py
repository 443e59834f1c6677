"""Runtime layer: probes, process groups, KV pool allocation, topology (torch imported lazily).

    probe.py          MemorySnapshot, MemoryProbe protocol, FakeProbe            (no torch)
    balance.py        RankMemory, GroupMemory, the imbalance rule, env switch      (no torch)
    profile_io.py     re-export of tpkit.hardware.profile_io (MachineProfile JSON, pure)
    cuda_probe.py     CudaProbe: torch.cuda.mem_get_info + NVML per-process usage
    nvml.py           optional pynvml access (degrades with a note when missing)
    topology.py       probe_topology / group_topology: the Topology from NVML + CUDA (the only NVML link reader)
    machine_probe.py  probe_machine() -> MachineProfile (what `tpkit probe` runs)
    group.py          init_cpu_group, init_memory over torch.distributed (gloo, waits bounded by timeout_s)
    kv_alloc.py       allocate_kv_pool(plan, device, probe) with the planned-vs-measured check

Importing this package imports no torch; the pure questions about link matrices live in
``tpkit.hardware.topology``.
"""

"""Role-dependent checks of SGLang's PD hook and the optimistic-prefill checks
that depend on it (``arg_groups/pd_disaggregation_hook.py``,
``arg_groups/serving_hook.py``): SGL132-SGL145.

Each predicate mirrors the condition in SGLang 0.5.23 at ``source``; ``a`` is
the resolved :class:`~pdlint.engines.sglang.resolve.Args`.
"""

from pdlint.engines.sglang.rulebase import MOVE_UNSAFE, WARNING, Hit, ex, sgl_rule

THR = "disaggregation_decode_host_receive_threshold"
PC = "--disaggregation-decode-allocation-policy prefill_complete"
DECODE_RADIX = "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache"


def host_receive_on(a) -> bool:
    """Decode host KV buffering is on: a host-receive threshold in [0, 1) (0.5.21: in (0, 1])."""
    return a.host_receive_active()


def blame_backup(a) -> str:
    """What set the resolved retraction backup: the flag, or a threshold below 1."""
    return ("disaggregation_decode_retraction_backup" if a.explicit("disaggregation_decode_retraction_backup")
            else THR)


@sgl_rule(
    "SGL132", "dcp-on-prefill", roles=("prefill",), autofix=MOVE_UNSAFE, severity=WARNING,
    upstream="DCP on a PD prefill server is supported when prefill and decode use the same DCP layout, but it "
             "usually adds communication overhead without improving prefill performance.",
    source="arg_groups/pd_disaggregation_hook.py:58", upstream_id="pd-prefill-dcp-overhead",
    why="Decode context parallelism (DCP) splits the KV cache for long decodes. A prefill server gains nothing "
        "from it and pays extra communication; it only has to match the decode server's DCP layout for the KV "
        "transfer.",
    fix="Drop `--dcp-size` on the prefill server unless the decode server's DCP layout requires it.",
    fire=["--disaggregation-mode prefill --dcp-size 2 --tp-size 2"],
    quiet=["--disaggregation-mode decode --dcp-size 2 --tp-size 2", "--disaggregation-mode prefill --tp-size 2"])
def _dcp_on_prefill(a):
    if a.role == "prefill" and a.gt("dcp_size", 1):
        return Hit("dcp_size")


@sgl_rule(
    "SGL133", "host-receive-threshold-out-of-range",
    upstream="--disaggregation-decode-host-receive-threshold must be between 0 and 1",
    source="arg_groups/pd_disaggregation_hook.py:65", upstream_id="pd-host-receive-threshold-range",
    why="The threshold is the device KV usage fraction at which a decode server starts receiving KV into host "
        "memory; 1 (the default) disables host receive. SGLang checks the range on every server, whatever its "
        "role.",
    fix="Use a value between 0 and 1 (1 keeps host receive off).",
    fire=["--disaggregation-decode-host-receive-threshold 2",
          "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold -0.1"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1",
           "--disaggregation-mode prefill --disaggregation-decode-host-receive-threshold 1.0"],
    notes="Values in [0, 1) pass this check but fail elsewhere: on non-decode servers (SGL106) and, at "
          "start-up, on decode servers (SGL187).")
def _thr_range(a):
    thr = a.num(THR)
    if thr is not None and not 0 <= thr <= 1:
        return Hit(THR)


@sgl_rule(
    "SGL134", "host-receive-with-hisparse-or-role-switch",
    upstream="Decode host receive does not yet support HiSparse or role switching",
    source="arg_groups/pd_disaggregation_hook.py:70", upstream_id="pd-host-receive-no-hisparse-or-role-switch",
    why="Decode host KV buffering (a host-receive threshold below 1) cannot be combined with HiSparse or with "
        "runtime PD role switching. SGLang checks this on every server, whatever its role.",
    fix="Keep `--disaggregation-decode-host-receive-threshold` at 1, or drop `--enable-hisparse` / "
        "`--enable-pd-role-switch`.",
    fire=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 --enable-pd-role-switch",
          "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 --enable-hisparse",
          "--disaggregation-decode-host-receive-threshold 0.5 --enable-pd-role-switch"],
    quiet=["--disaggregation-mode decode --enable-pd-role-switch",
           "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1 --enable-pd-role-switch"])
def _thr_hisparse_role_switch(a):
    if host_receive_on(a):
        for dest in ("enable_hisparse", "enable_pd_role_switch"):
            if a.is_true(dest):
                return Hit(dest, THR)


@sgl_rule(
    "SGL135", "host-receive-with-cpu-tensor-backup",
    upstream="Decode host KV buffering requires host_pool retraction",
    source="arg_groups/pd_disaggregation_hook.py:75", upstream_id="pd-host-receive-needs-host-pool",
    why="Decode host KV buffering shares the host pool of the host_pool retraction backup. A threshold below 1 "
        "silently switches any other backup (even an explicit `none`) to host_pool, but an explicit `cpu_tensor` "
        "is refused.",
    fix="Drop `--disaggregation-decode-retraction-backup cpu_tensor` (or use `host_pool`), or keep the "
        "host-receive threshold at 1.",
    fire=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 "
          "--disaggregation-decode-retraction-backup cpu_tensor"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1 "
           "--disaggregation-decode-retraction-backup cpu_tensor"],
    notes="Any other backup (even `none`) passes SGLang's argument resolution, but a decode server with a "
          "threshold below 1 still fails at start-up: no built-in transfer backend supports host destinations "
          "(SGL187).")
def _thr_cpu_tensor(a):
    if host_receive_on(a) and a.eq("disaggregation_decode_retraction_backup", "cpu_tensor"):
        return Hit("disaggregation_decode_retraction_backup", THR)


@sgl_rule(
    "SGL136", "decode-radix-with-hisparse", roles=("decode",),
    upstream="--disaggregation-decode-enable-radix-cache is incompatible with --enable-hisparse",
    source="arg_groups/pd_disaggregation_hook.py:101", upstream_id="pd-decode-radix-no-hisparse",
    why="HiSparse keeps its own sparse decode KV layout, which the decode radix cache cannot share.",
    fix="On the decode server, drop `--disaggregation-decode-enable-radix-cache` or `--enable-hisparse`.",
    fire=[DECODE_RADIX + " --enable-hisparse"],
    quiet=[DECODE_RADIX, "--disaggregation-mode prefill --disaggregation-decode-enable-radix-cache"])
def _decode_radix_hisparse(a):
    if a.role == "decode" and a.is_true("disaggregation_decode_enable_radix_cache") and a.is_true("enable_hisparse"):
        return Hit("enable_hisparse", "disaggregation_decode_enable_radix_cache")


@sgl_rule(
    "SGL137", "decode-radix-with-fake-backend", roles=("decode",),
    upstream="--disaggregation-decode-enable-radix-cache is incompatible with --disaggregation-transfer-backend fake",
    source="arg_groups/pd_disaggregation_hook.py:106", upstream_id="pd-decode-radix-no-fake-backend",
    why="The `fake` transfer backend moves no KV (synthetic decode benchmarks), so there is nothing for a decode "
        "radix cache to hold.",
    fix="Drop `--disaggregation-decode-enable-radix-cache` for fake-backend benchmarks, or use a real backend.",
    fire=[DECODE_RADIX + " --disaggregation-transfer-backend fake"],
    quiet=["--disaggregation-mode decode --disaggregation-transfer-backend fake",
           DECODE_RADIX + " --disaggregation-transfer-backend nixl"])
def _decode_radix_fake(a):
    if (a.role == "decode" and a.is_true("disaggregation_decode_enable_radix_cache")
            and a.eq("disaggregation_transfer_backend", "fake")):
        return Hit("disaggregation_transfer_backend", "disaggregation_decode_enable_radix_cache")


def _decode_radix_accepted(a) -> bool:
    """The decode radix cache passes the PD hook's two checks (no HiSparse, no fake backend)."""
    return (a.role == "decode" and a.is_true("disaggregation_decode_enable_radix_cache")
            and not a.is_true("enable_hisparse") and a.ne("disaggregation_transfer_backend", "fake"))


@sgl_rule(
    "SGL138", "decode-radix-with-dp-attention", roles=("decode",), severity=WARNING,
    upstream="EXPERIMENTAL: Decode radix cache with DP attention. Requires prefix-aware DP rank routing for "
             "optimal cache hits.",
    source="arg_groups/pd_disaggregation_hook.py:111", upstream_id="pd-decode-radix-dp-attention-experimental",
    why="With attention DP every DP rank has its own radix cache; prefix hits need a router that sends requests "
        "sharing a prefix to the same DP rank.",
    fix="Route by prefix to the decode DP ranks, or drop `--disaggregation-decode-enable-radix-cache`.",
    fire=[DECODE_RADIX + " --tp-size 2 --attn-dp-size 2",
          DECODE_RADIX + " --tp-size 2 --dp-size 2 --enable-dp-attention"],
    quiet=[DECODE_RADIX + " --tp-size 2", "--disaggregation-mode decode --tp-size 2 --attn-dp-size 2"])
def _decode_radix_dp(a):
    if _decode_radix_accepted(a) and a.attn_dp_enabled:
        return Hit("disaggregation_decode_enable_radix_cache", "attn_dp_size")


@sgl_rule(
    "SGL139", "decode-radix-experimental", roles=("decode",), severity=WARNING, default=False,
    upstream="EXPERIMENTAL: Radix cache is enabled for decode server",
    source="arg_groups/pd_disaggregation_hook.py:120", upstream_id="pd-decode-radix-experimental",
    why="The decode radix cache (prefix reuse on the decode server, e.g. for multi-turn sessions) is marked "
        "experimental in SGLang 0.5.23.",
    fix="Nothing to fix if it is intended; drop `--disaggregation-decode-enable-radix-cache` to use the "
        "supported default (no decode radix cache).",
    fire=[DECODE_RADIX],
    quiet=["--disaggregation-mode decode", "--disaggregation-mode prefill --disaggregation-decode-enable-radix-cache"])
def _decode_radix_experimental(a):
    if _decode_radix_accepted(a):
        return Hit("disaggregation_decode_enable_radix_cache")


@sgl_rule(
    "SGL140", "decode-radix-cache-forced-off", roles=("decode",), severity=WARNING, default=False,
    upstream="Radix cache is disabled for decode server",
    source="arg_groups/pd_disaggregation_hook.py:127", upstream_id="pd-decode-radix-disabled",
    why="A decode server turns its radix cache off (disable_radix_cache=True) unless "
        "`--disaggregation-decode-enable-radix-cache` is given, whatever the radix-cache flags say. Features "
        "that need the radix cache (HiCache, LMCache) then fail with messages about `--disable-radix-cache`.",
    fix="Nothing to fix if no prefix cache is wanted on decode; otherwise add "
        "`--disaggregation-decode-enable-radix-cache`.",
    fire=["--disaggregation-mode decode", "--disaggregation-mode decode --disable-radix-cache"],
    quiet=[DECODE_RADIX, "--disaggregation-mode prefill"],
    notes="Informational (off by default): SGLang logs this on every decode server without the decode radix "
          "cache.")
def _decode_radix_disabled(a):
    if a.role == "decode" and a.is_false("disaggregation_decode_enable_radix_cache"):
        return Hit("disaggregation_mode")


@sgl_rule(
    "SGL141", "rust-server-bootstrap-port-conflict", roles=("prefill",),
    upstream="SGLANG_RUST_SERVER serves the PD KV bootstrap registry on the api port itself; "
             "--disaggregation-bootstrap-port {disaggregation_bootstrap_port} conflicts with --port {port}. Drop "
             "--disaggregation-bootstrap-port (decode nodes and the PD router must then target the prefill api "
             "port).",
    source="arg_groups/pd_disaggregation_hook.py:277", upstream_id="pd-rust-server-bootstrap-port",
    env=("SGLANG_RUST_SERVER",),
    why="With the Rust server a prefill serves the KV bootstrap registry on its API port. A default bootstrap "
        "port (8998) is silently moved to `--port`; any other explicit port is refused. All built-in transfer "
        "backends use that registry.",
    fix="Drop `--disaggregation-bootstrap-port` on the prefill server (or set it to `--port`) and point the "
        "decode servers and the router at the prefill's API port.",
    fire=[ex("--disaggregation-mode prefill --disaggregation-bootstrap-port 9001 --port 30000",
             {"SGLANG_RUST_SERVER": "1"}),
          ex("--disaggregation-mode prefill --disaggregation-bootstrap-port 9001 --disaggregation-transfer-backend "
             "nixl", {"SGLANG_RUST_SERVER": "true"})],
    quiet=[ex("--disaggregation-mode prefill --disaggregation-bootstrap-port 30000 --port 30000",
              {"SGLANG_RUST_SERVER": "1"}),
           ex("--disaggregation-mode prefill --port 30001", {"SGLANG_RUST_SERVER": "1"}),
           ex("--disaggregation-mode decode --disaggregation-bootstrap-port 9001", {"SGLANG_RUST_SERVER": "1"}),
           ex("--disaggregation-mode prefill --disaggregation-bootstrap-port 9001", {"SGLANG_RUST_SERVER": "0"})])
def _rust_bootstrap_port(a):
    if a.role != "prefill" or not a.env_truthy("SGLANG_RUST_SERVER") or a.eq("disaggregation_transfer_backend", "fake"):
        return None
    bport, port = a.num("disaggregation_bootstrap_port"), a.num("port")
    if bport is not None and port is not None and bport not in (8998, port):
        return Hit("disaggregation_bootstrap_port", "port",
                   note="SGLANG_RUST_SERVER is set in this launch's environment")


@sgl_rule(
    "SGL142", "staging-buffer-transfer-backend", roles=("prefill", "decode"),
    upstream="SGLANG_DISAGG_STAGING_BUFFER requires disaggregation_transfer_backend='mooncake' or 'nixl', got "
             "'{disaggregation_transfer_backend}'.",
    source="arg_groups/pd_disaggregation_hook.py:158", upstream_id="pd-staging-buffer-backend",
    env=("SGLANG_DISAGG_STAGING_BUFFER",),
    why="The staging-buffer KV transfer path (heterogeneous TP between prefill and decode) is implemented by the "
        "Mooncake and NIXL backends only.",
    fix="Use `--disaggregation-transfer-backend mooncake` or `nixl`, or unset `SGLANG_DISAGG_STAGING_BUFFER`.",
    fire=[ex("--disaggregation-mode decode --disaggregation-transfer-backend mori",
             {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
          ex("--disaggregation-mode decode --disaggregation-transfer-backend fake",
             {"SGLANG_DISAGG_STAGING_BUFFER": "yes"})],
    quiet=[ex("--disaggregation-mode prefill --disaggregation-transfer-backend nixl",
              {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
           ex("--disaggregation-mode prefill --disaggregation-transfer-backend mooncake_tcp",
              {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
           ex("--disaggregation-transfer-backend mori", {"SGLANG_DISAGG_STAGING_BUFFER": "1"})])
def _staging_backend(a):
    if (a.pd and a.env_truthy("SGLANG_DISAGG_STAGING_BUFFER")
            and a.not_among("disaggregation_transfer_backend", ("mooncake", "nixl"))):
        return Hit("disaggregation_transfer_backend", note="SGLANG_DISAGG_STAGING_BUFFER is set in this launch's "
                                                           "environment")


# -- optimistic prefill (serving_hook.handle_other_validations) -------------------------------------

def hicache_write_policy(a):
    """``--hicache-write-policy`` after HiCache's normalisation: ``buffer_only`` with a storage backend
    turns write_back into write_through (hicache_hook.validate_hicache_host_memory_mode)."""
    pol = a.get("hicache_write_policy")
    if (pol == "write_back" and a.hicache_path_active() and a.eq("hicache_host_memory_mode", "buffer_only")
            and a.is_set("hicache_storage_backend")):
        return "write_through"
    return pol


def optimistic_hicache_unsupported(a) -> bool:
    """HiCache in a mode optimistic prefill does not support (serving_hook.py:512)."""
    if not a.is_true("enable_hierarchical_cache"):
        return False
    pol = hicache_write_policy(a)
    if not a.known("hicache_storage_backend") or not a.known("hicache_host_memory_mode") or not isinstance(pol, str):
        return False
    if a.is_unset("hicache_storage_backend"):
        return pol not in ("write_back", "write_through")
    return not (a.eq("hicache_host_memory_mode", "buffer_only") and pol == "write_through")


@sgl_rule(
    "SGL143", "prefill-complete-without-optimistic-prefill", roles=("prefill",),
    upstream="prefill_complete requires optimistic prefill, but the resolved model/cache configuration disabled it.",
    source="arg_groups/serving_hook.py:538", upstream_id="pd-prefill-complete-needs-optimistic",
    why="The prefill_complete allocation policy relies on optimistic prefill on the prefill server. SGLang "
        "raises `--optimistic-prefill-attempts 0` (the default) to 1 for it, but a negative value stays.",
    fix="Drop `--optimistic-prefill-attempts` (or set it to 1 or more) on a prefill_complete prefill server.",
    fire=["--disaggregation-mode prefill " + PC + " --optimistic-prefill-attempts -1"],
    quiet=["--disaggregation-mode prefill " + PC,
           "--disaggregation-mode prefill " + PC + " --optimistic-prefill-attempts 2",
           "--disaggregation-mode prefill --optimistic-prefill-attempts -1"],
    notes="SGLang also resets optimistic prefill to 0 with `--pp-size` > 1 or an unsupported HiCache mode; with "
          "prefill_complete both are rejected earlier (SGL113, SGL121), so pdlint reports only those.")
def _pc_optimistic(a):
    if (a.role == "prefill" and a.eq("disaggregation_decode_allocation_policy", "prefill_complete")
            and a.lt("optimistic_prefill_attempts", 0)):
        return Hit("optimistic_prefill_attempts", "disaggregation_decode_allocation_policy")


@sgl_rule(
    "SGL144", "optimistic-prefill-with-pp", roles=("prefill",), severity=WARNING,
    upstream="Optimistic prefill does not support pp_size > 1",
    source="arg_groups/serving_hook.py:506", upstream_id="pd-optimistic-prefill-pp",
    why="With pipeline parallelism SGLang silently turns optimistic prefill off (attempts := 0) on a prefill "
        "server.",
    fix="Drop `--optimistic-prefill-attempts` on pipeline-parallel prefill servers, or use `--pp-size 1`.",
    fire=["--disaggregation-mode prefill --optimistic-prefill-attempts 2 --pp-size 2"],
    quiet=["--disaggregation-mode prefill --pp-size 2", "--disaggregation-mode decode --optimistic-prefill-attempts 2 "
                                                        "--pp-size 2",
           "--disaggregation-mode prefill --optimistic-prefill-attempts 2"])
def _optimistic_pp(a):
    if a.role == "prefill" and a.gt("optimistic_prefill_attempts", 0) and a.gt("pp_size", 1):
        return Hit("optimistic_prefill_attempts", "pp_size")


@sgl_rule(
    "SGL145", "optimistic-prefill-with-unsupported-hicache", roles=("prefill",), severity=WARNING,
    upstream="Optimistic prefill supports L2 write-back/write-through or L3 buffer-only write-through hierarchical "
             "cache",
    source="arg_groups/serving_hook.py:523", upstream_id="pd-optimistic-prefill-hicache",
    why="With HiCache in another mode (e.g. an L3 storage backend in `cache` host-memory mode, or "
        "write_through_selective) SGLang silently turns optimistic prefill off (attempts := 0) on a prefill "
        "server.",
    fix="Use L2-only HiCache with write_back/write_through, or L3 with `--hicache-host-memory-mode buffer_only` "
        "and write_through; otherwise drop `--optimistic-prefill-attempts`.",
    fire=["--disaggregation-mode prefill --optimistic-prefill-attempts 2 --enable-hierarchical-cache "
          "--hicache-storage-backend file",
          "--disaggregation-mode prefill --optimistic-prefill-attempts 2 --enable-hierarchical-cache "
          "--hicache-write-policy write_through_selective"],
    quiet=["--disaggregation-mode prefill --optimistic-prefill-attempts 2 --enable-hierarchical-cache",
           "--disaggregation-mode prefill --optimistic-prefill-attempts 2 --enable-hierarchical-cache "
           "--hicache-storage-backend file --hicache-host-memory-mode buffer_only --hicache-write-policy write_back",
           "--disaggregation-mode prefill --enable-hierarchical-cache --hicache-storage-backend file"])
def _optimistic_hicache(a):
    if (a.role == "prefill" and a.gt("optimistic_prefill_attempts", 0) and a.le("pp_size", 1)
            and optimistic_hicache_unsupported(a)):
        blame = "hicache_storage_backend" if a.is_set("hicache_storage_backend") else "hicache_write_policy"
        return Hit(blame, "optimistic_prefill_attempts", "enable_hierarchical_cache")

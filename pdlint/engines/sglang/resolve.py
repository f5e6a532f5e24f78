"""A resolved view of one SGLang launch, as SGLang's resolution pipeline sees it.

Rules read flags through :class:`Args`: the parsed command line, the table's
defaults, and the role-driven resolutions SGLang applies before its checks run
(``research/sglang-rules.md`` section 3), in pipeline order.  Missing one of
these makes a rule fire on the wrong role or miss an indirect failure:

* ``--dp-size N --enable-dp-attention`` becomes ``--attn-dp-size N --dp-size 1``;
* ``mooncake_tcp`` becomes ``mooncake`` and drops ``--disaggregation-ib-device``;
* ``prefill_complete`` on a prefill raises ``--optimistic-prefill-attempts`` 0 to 1;
* a host-receive threshold below 1 forces the ``host_pool`` retraction backup
  (unless ``cpu_tensor`` was asked for, which is an error);
* a decode server turns the radix cache off unless
  ``--disaggregation-decode-enable-radix-cache`` (and on when it is given);
* a decode server without ``--disaggregation-decode-extra-slots`` reserves 0
  extra slots, or twice its per-DP-worker ``--max-running-requests`` when that
  is at most 32;
* with ``SGLANG_RUST_SERVER`` a prefill's default bootstrap port becomes its
  ``--port`` (the Rust server serves the KV bootstrap registry there);
* ``--hicache-ratio`` defaults to 2.0 (1.2 for ``buffer_only``) on every
  server except decode;
* ``--load-balance-method auto`` is ``follow_bootstrap_room`` on a prefill,
  ``round_robin`` elsewhere;
* ``--enable-tp-lm-head-all-to-all`` defaults on only for a pure attention-DP
  decode server;
* ``--speculative-algorithm`` is upper-cased and ``NEXTN`` runs as ``EAGLE``.
  This happens in SGLang's speculative hook, late in the pipeline: checks in
  earlier hooks (PD, KV cache sharding, MoE) see the value as written, which
  rules read with ``a.raw("speculative_algorithm")``.

Derived answers (no override): :meth:`Args.hicache_path_active` (the HiCache
hook runs on every decode server by default), :meth:`Args.starts_bootstrap_server`
and :meth:`Args.resolved_chunked_prefill_size`.

Three-valued logic: a value pdlint cannot know (an opaque token, or any unset
flag when the command line contains opaque tokens) is ``OPAQUE``; every
comparison helper answers False for it, so rules never fire on guesses.  Use
``ne``/``lt``… helpers, never ``not eq(...)``.
"""

from __future__ import annotations

from typing import Any, Optional

from pdlint.engines.sglang.argv import UNREAD, OPAQUE, Parsed
from pdlint.text import TStr

# SGLang's EnvBool (sglang/srt/environ.py): these (lower-cased) are true,
# "false"/"0"/"no"/"n" false, and anything else falls back to the default.
TRUTHY = ("true", "1", "yes", "y")
# --disaggregation-bootstrap-port's default; built-in transfer backends whose
# bootstrap server is the common HTTP registry the Rust server stands in for.
DEFAULT_BOOTSTRAP_PORT = 8998
COMMON_BOOTSTRAP_BACKENDS = ("mooncake", "nixl", "mori", "ascend")


class Args:
    def __init__(self, parsed: Parsed, env: Optional[dict] = None, version: Optional[str] = None):
        self.parsed = parsed
        self.env = dict(env or {})  # name -> TStr
        self.version = version
        self.overrides: dict = {}
        self.resolution_notes: dict = {}
        self._memo: Optional[dict] = None  # get() answers, once the resolutions are applied
        self._nums: Optional[dict] = None
        mode = parsed.value("disaggregation_mode")
        self.role = mode if mode in ("prefill", "decode", "null") else None
        self._resolve()
        self._memo = {}
        # _num() answers (rules ask for a few sizes hundreds of times a launch); not in a subclass that
        # watches get() (the prefilter's and the release filter's recorders): a read must reach get() there
        self._nums = {} if type(self).get is Args.get else None

    # -- raw access ---------------------------------------------------------
    def raw(self, dest: str) -> Any:
        return self.parsed.value(dest)

    def get(self, dest: str) -> Any:
        # the rules of one launch ask about 200 times, mostly for a few dests
        memo = self._memo
        if memo is not None:
            value = memo.get(dest, UNREAD)
            if value is not UNREAD:
                return value
        value = self.overrides[dest] if dest in self.overrides else self.parsed.value(dest)
        if memo is not None:
            memo[dest] = value
        return value

    def explicit(self, dest: str) -> bool:
        return self.parsed.explicit(dest)

    def known(self, dest: str) -> bool:
        return self.get(dest) is not OPAQUE

    # -- comparisons (False when unknown) -----------------------------------
    def is_true(self, dest: str) -> bool:
        return self.get(dest) is True

    def is_set(self, dest: str) -> bool:
        """The value is known and not None/empty."""
        v = self.get(dest)
        return v is not OPAQUE and v is not None and v != [] and v != ""

    def is_unset(self, dest: str) -> bool:
        """Known to be None/empty."""
        v = self.get(dest)
        return v is not OPAQUE and (v is None or v == [] or v == "")

    def is_false(self, dest: str) -> bool:
        return self.get(dest) is False or self.get(dest) is None and self.known(dest)

    def eq(self, dest: str, value: Any) -> bool:
        v = self.get(dest)
        return v is not OPAQUE and v == value

    def ne(self, dest: str, value: Any) -> bool:
        v = self.get(dest)
        return v is not OPAQUE and v != value

    def among(self, dest: str, values) -> bool:
        v = self.get(dest)
        return v is not OPAQUE and v in values

    def not_among(self, dest: str, values) -> bool:
        v = self.get(dest)
        return v is not OPAQUE and v not in values

    def _num(self, dest: str) -> Optional[float]:
        nums = self._nums
        if nums is not None:
            v = nums.get(dest, UNREAD)
            if v is not UNREAD:
                return v
        v = self.get(dest)
        if v is OPAQUE or v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
            v = None
        if nums is not None:
            nums[dest] = v
        return v

    def gt(self, dest: str, n: float) -> bool:
        v = self._num(dest)
        return v is not None and v > n

    def ge(self, dest: str, n: float) -> bool:
        v = self._num(dest)
        return v is not None and v >= n

    def lt(self, dest: str, n: float) -> bool:
        v = self._num(dest)
        return v is not None and v < n

    def le(self, dest: str, n: float) -> bool:
        v = self._num(dest)
        return v is not None and v <= n

    def num(self, dest: str) -> Optional[float]:
        """A known number (an int or float; None when unknown, unset or not a number)."""
        return self._num(dest)

    # -- roles ----------------------------------------------------------------
    @property
    def pd(self) -> bool:
        return self.role in ("prefill", "decode")

    @property
    def role_known(self) -> bool:
        return self.role is not None

    @property
    def attn_dp_enabled(self) -> bool:
        return self.gt("attn_dp_size", 1)

    def hicache_path_active(self) -> bool:
        """Known to run SGLang's HiCache normalisation and validation
        (hicache_hook.handle_hicache:63): with ``--enable-hierarchical-cache``,
        decode KV offload, or on any decode server whose retraction backup is
        unset or host_pool - so HiCache-only flags are validated on decode
        servers even without HiCache (``res-decode-hicache-path-active``)."""
        if self.is_true("enable_unified_cache_external_linker"):
            return False  # handle_hicache returns before the normalisation
        if self.is_true("enable_hierarchical_cache") or self.is_true("disaggregation_decode_enable_offload_kvcache"):
            return True
        return self.role == "decode" and self.among("disaggregation_decode_retraction_backup", (None, "host_pool"))

    @property
    def starts_bootstrap_server(self) -> bool:
        """The server starts the KV bootstrap server on ``--host``:``--disaggregation-bootstrap-port``:
        every prefill, and with ``--enable-pd-role-switch`` every PD server
        (managers/disagg_service.py:27, ``res-bootstrap-server-prefill-only``)."""
        return self.role == "prefill" or (self.role == "decode" and self.is_true("enable_pd_role_switch"))

    def resolved_chunked_prefill_size(self) -> Optional[int]:
        """The chunked prefill size SGLang's later checks see: the explicit
        ``--chunked-prefill-size`` divided by the attention-DP size
        (parallel_hook.handle_data_parallelism:331), which ``--dwdp-size N``
        sets to N (parallel_hook.handle_dwdp:466; DWDP is rejected on decode).
        None when it is not on the command line (SGLang derives it from GPU
        memory) or unknown."""
        if not self.explicit("chunked_prefill_size"):
            return None
        chunk, dwdp = self.num("chunked_prefill_size"), self.num("dwdp_size")
        if chunk is None or isinstance(chunk, float) or dwdp is None:
            return None
        if dwdp > 1:
            return int(chunk) // int(dwdp)
        if self.attn_dp_enabled:
            return int(chunk) // int(self.num("attn_dp_size"))
        return int(chunk) if self.known("attn_dp_size") else None

    def host_receive_active(self) -> bool:
        """The host-receive threshold is known and on.  Its default is the value that turns it off: 1 from
        0.5.22 ("below 1 receives into host memory"), 0 in 0.5.21 ("above 0 ...")."""
        thr = self._num("disaggregation_decode_host_receive_threshold")
        if thr is None or not 0 <= thr <= 1:
            return False
        flag = self.parsed.table.by_dest.get("disaggregation_decode_host_receive_threshold")
        off = 1 if flag is None or flag.default in (None, 1, 1.0, "1", "1.0") else 0
        return thr < 1 if off == 1 else thr > 0

    # -- environment ------------------------------------------------------------
    def env_value(self, name: str) -> Optional[str]:
        v = self.env.get(name)
        if v is None:
            return None
        if isinstance(v, TStr):
            return None if v.opaque else v.text
        return str(v)

    def env_truthy(self, name: str) -> bool:
        """The variable is visibly set to a true value (SGLang's EnvBool parsing:
        ``true``/``1``/``yes``/``y`` in any case, nothing else)."""
        v = self.env_value(name)
        return v is not None and v.lower() in TRUTHY

    def env_int(self, name: str) -> Optional[int]:
        """The variable's value as SGLang's EnvInt reads it; None when it is
        not visibly set or not an integer (SGLang then uses the default)."""
        v = self.env_value(name)
        if v is None:
            return None
        try:
            return int(v)
        except ValueError:
            return None

    # -- blame ----------------------------------------------------------------
    def token(self, dest: str) -> Optional[TStr]:
        """The token a human edits for ``dest``: the value for valued flags,
        the flag itself for booleans; None when the flag is not on the line."""
        occ = self.parsed.occurrence(dest)
        if occ is None:
            return None
        if occ.flag.nargs_zero or not occ.values:
            return occ.name_tok
        return occ.values[0]

    def flag_token(self, dest: str) -> Optional[TStr]:
        occ = self.parsed.occurrence(dest)
        return occ.name_tok if occ is not None else None

    def option(self, dest: str) -> str:
        occ = self.parsed.occurrence(dest)
        if occ is not None:
            return occ.option
        flag = self.parsed.table.by_dest.get(self.parsed.dest(dest))
        return flag.primary if flag else "--" + dest.replace("_", "-")

    # -- SGLang's role-driven resolutions ------------------------------------
    def _set(self, dest: str, value: Any, note: str) -> None:
        self.overrides[dest] = value
        if self._memo is not None:  # set after construction (e.g. Dynamo's port): answer afresh
            self._memo.pop(dest, None)
            if self._nums is not None:
                self._nums.pop(dest, None)
        self.resolution_notes[dest] = note

    def _resolve(self) -> None:
        g = self.get
        # parallel_hook.handle_deprecated_dp_attention
        if self.is_true("enable_dp_attention"):
            # releases before --attn-dp-size meant the same with --dp-size: N
            # attention-DP groups inside the TP group, not N replicas
            old_release = "attn_dp_size" not in self.parsed.table.by_dest
            if self.eq("attn_dp_size", 1) or old_release:
                self._set("attn_dp_size", g("dp_size"), "--dp-size N --enable-dp-attention is --attn-dp-size N")
                self._set("dp_size", 1, "--dp-size N --enable-dp-attention is --attn-dp-size N --dp-size 1")
            self._set("enable_dp_attention", False, "folded into --attn-dp-size")
        # hicache_hook.handle_hicache_ratio_default:119 (runs before the PD hook)
        if self.role in ("prefill", "null") and self.is_unset("hicache_ratio"):
            mode = g("hicache_host_memory_mode")
            if mode in ("cache", "buffer_only"):
                self._set("hicache_ratio", 1.2 if mode == "buffer_only" else 2.0,
                          "--hicache-ratio defaults to 2.0 (1.2 for buffer_only) except on decode servers")
        # pd_disaggregation_hook.handle_pd_disaggregation
        if self.eq("disaggregation_transfer_backend", "mooncake_tcp"):
            self._set("disaggregation_transfer_backend", "mooncake", "mooncake_tcp is mooncake with MC_FORCE_TCP=1")
            self._set("disaggregation_ib_device", None, "mooncake_tcp drops --disaggregation-ib-device")
        if (self.eq("disaggregation_decode_allocation_policy", "prefill_complete") and self.role == "prefill"
                and self.eq("optimistic_prefill_attempts", 0)):
            self._set("optimistic_prefill_attempts", 1, "prefill_complete raises optimistic prefill attempts to 1")
        if self.host_receive_active() and not self.eq("disaggregation_decode_retraction_backup", "cpu_tensor"):
            self._set("disaggregation_decode_retraction_backup", "host_pool",
                      "a host-receive threshold below 1 forces the host_pool retraction backup")
        if self.role == "decode":
            if self.is_true("disaggregation_decode_enable_radix_cache"):
                self._set("disable_radix_cache", False, "decode radix cache enabled")
            elif self.known("disaggregation_decode_enable_radix_cache"):
                self._set("disable_radix_cache", True,
                          "a decode server turns the radix cache off unless "
                          "--disaggregation-decode-enable-radix-cache")
            # pd_disaggregation_hook.py:133 (res-decode-extra-slots)
            if self.is_unset("disaggregation_decode_extra_slots"):
                mrr, dp, adp = (self._num("max_running_requests"), self._num("dp_size"), self._num("attn_dp_size"))
                if self.is_unset("max_running_requests"):
                    self._set("disaggregation_decode_extra_slots", 0, "decode extra slots default to 0")
                elif mrr is not None and dp and adp:
                    per_worker = max(1, int(mrr) // int(dp * adp))
                    self._set("disaggregation_decode_extra_slots", per_worker * 2 if per_worker <= 32 else 0,
                              "decode extra slots default to 2 x the per-DP-worker --max-running-requests "
                              "when that is at most 32, else 0")
        # pd_disaggregation_hook._alias_bootstrap_port_to_api_port:284 (res-rust-prefill-bootstrap-port)
        if (self.role == "prefill" and self.env_truthy("SGLANG_RUST_SERVER")
                and self.among("disaggregation_transfer_backend", COMMON_BOOTSTRAP_BACKENDS)
                and self.eq("disaggregation_bootstrap_port", DEFAULT_BOOTSTRAP_PORT) and self.known("port")):
            self._set("disaggregation_bootstrap_port", g("port"),
                      "with SGLANG_RUST_SERVER a prefill serves the KV bootstrap registry on --port")
        # serving_hook.handle_load_balance_method
        if self.eq("load_balance_method", "auto") and self.role is not None:
            self._set("load_balance_method", "follow_bootstrap_room" if self.role == "prefill" else "round_robin",
                      "--load-balance-method auto resolves per role")
        # overrides._tp_lm_head_all_to_all_default:1412 (res-tp-lm-head-a2a-default)
        if self.is_unset("enable_tp_lm_head_all_to_all") and self.role is not None:
            keys = ("attn_dp_size", "tp_size", "attn_cp_size", "enable_dp_lm_head")
            if all(self.known(k) for k in keys):
                on = (self.role == "decode" and self.gt("attn_dp_size", 1) and self.eq("tp_size", g("attn_dp_size"))
                      and self.eq("attn_cp_size", 1) and not self.is_true("enable_dp_lm_head"))
                self._set("enable_tp_lm_head_all_to_all", on,
                          "--enable-tp-lm-head-all-to-all defaults on only for a pure attention-DP decode server")
        # speculative_hook.handle_speculative_decoding: upper-cased, NEXTN aliases EAGLE (hooks that run
        # earlier read a.raw("speculative_algorithm"))
        algo = g("speculative_algorithm")
        if isinstance(algo, str):
            up = algo.upper()
            self._set("speculative_algorithm", "EAGLE" if up == "NEXTN" else up, "upper-cased; NEXTN runs as EAGLE")
            self.overrides["speculative_algorithm_written"] = up

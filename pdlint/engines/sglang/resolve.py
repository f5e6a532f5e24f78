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
* ``--load-balance-method auto`` is ``follow_bootstrap_room`` on a prefill,
  ``round_robin`` elsewhere;
* ``--speculative-algorithm`` is upper-cased and ``NEXTN`` runs as ``EAGLE``.

Three-valued logic: a value pdlint cannot know (an opaque token, or any unset
flag when the command line contains opaque tokens) is ``OPAQUE``; every
comparison helper answers False for it, so rules never fire on guesses.  Use
``ne``/``lt``… helpers, never ``not eq(...)``.
"""

from __future__ import annotations

from typing import Any, Optional

from pdlint.engines.sglang.argv import OPAQUE, Parsed
from pdlint.text import TStr

TRUTHY = ("1", "true", "yes", "on", "y", "t")


class Args:
    def __init__(self, parsed: Parsed, env: Optional[dict] = None, version: Optional[str] = None):
        self.parsed = parsed
        self.env = dict(env or {})  # name -> TStr
        self.version = version
        self.overrides: dict = {}
        self.resolution_notes: dict = {}
        mode = parsed.value("disaggregation_mode")
        self.role = mode if mode in ("prefill", "decode", "null") else None
        self._resolve()

    # -- raw access ---------------------------------------------------------
    def raw(self, dest: str) -> Any:
        return self.parsed.value(dest)

    def get(self, dest: str) -> Any:
        if dest in self.overrides:
            return self.overrides[dest]
        return self.parsed.value(dest)

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
        v = self.get(dest)
        if v is OPAQUE or v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
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

    # -- environment ------------------------------------------------------------
    def env_value(self, name: str) -> Optional[str]:
        v = self.env.get(name)
        if v is None:
            return None
        if isinstance(v, TStr):
            return None if v.opaque else v.text
        return str(v)

    def env_truthy(self, name: str) -> bool:
        """The variable is visibly set to a true value (SGLang's EnvBool parsing)."""
        v = self.env_value(name)
        return v is not None and v.strip().lower() in TRUTHY

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
        self.resolution_notes[dest] = note

    def _resolve(self) -> None:
        g = self.get
        # parallel_hook.handle_deprecated_dp_attention
        if self.is_true("enable_dp_attention"):
            if self.eq("attn_dp_size", 1):
                self._set("attn_dp_size", g("dp_size"), "--dp-size N --enable-dp-attention is --attn-dp-size N")
                self._set("dp_size", 1, "--dp-size N --enable-dp-attention is --attn-dp-size N --dp-size 1")
            self._set("enable_dp_attention", False, "folded into --attn-dp-size")
        # pd_disaggregation_hook.handle_pd_disaggregation
        if self.eq("disaggregation_transfer_backend", "mooncake_tcp"):
            self._set("disaggregation_transfer_backend", "mooncake", "mooncake_tcp is mooncake with MC_FORCE_TCP=1")
            self._set("disaggregation_ib_device", None, "mooncake_tcp drops --disaggregation-ib-device")
        if (self.eq("disaggregation_decode_allocation_policy", "prefill_complete") and self.role == "prefill"
                and self.eq("optimistic_prefill_attempts", 0)):
            self._set("optimistic_prefill_attempts", 1, "prefill_complete raises optimistic prefill attempts to 1")
        thr = self._num("disaggregation_decode_host_receive_threshold")
        if thr is not None and 0 <= thr < 1 and not self.eq("disaggregation_decode_retraction_backup", "cpu_tensor"):
            self._set("disaggregation_decode_retraction_backup", "host_pool",
                      "a host-receive threshold below 1 forces the host_pool retraction backup")
        if self.role == "decode":
            if self.is_true("disaggregation_decode_enable_radix_cache"):
                self._set("disable_radix_cache", False, "decode radix cache enabled")
            elif self.known("disaggregation_decode_enable_radix_cache"):
                self._set("disable_radix_cache", True,
                          "a decode server turns the radix cache off unless "
                          "--disaggregation-decode-enable-radix-cache")
        # serving_hook.handle_load_balance_method
        if self.eq("load_balance_method", "auto") and self.role is not None:
            self._set("load_balance_method", "follow_bootstrap_room" if self.role == "prefill" else "round_robin",
                      "--load-balance-method auto resolves per role")
        # speculative algorithm spelling
        algo = g("speculative_algorithm")
        if isinstance(algo, str):
            up = algo.upper()
            self._set("speculative_algorithm", "EAGLE" if up == "NEXTN" else up, "upper-cased; NEXTN runs as EAGLE")
            self.overrides["speculative_algorithm_written"] = up

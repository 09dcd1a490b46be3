"""An ONNX pair classifier of the user's own, as one more opinion on close calls.

No NLI model found ships its weights under a licence that lets this project bundle it
(`research/rerankers-and-nli.md`), so the offline judge stays rules plus embeddings and
this is a slot: `write.pair_model` names a folder holding

- `model.onnx`: inputs among `input_ids`, `attention_mask` and `token_type_ids` (int64
  or int32; a fixed sequence length is padded to), first output `[batch, labels]`;
- `tokenizer.json`: a Hugging Face `tokenizers` file that encodes a pair;
- `manifest.json`: `{"labels": [...]}` in output order, each one of `LABEL_VERDICTS`
  (NLI's entailment / neutral / contradiction, or the write path's own five), and
  optionally `name`, `max_length` (256), `threshold` (0.8: the probability a label needs
  to settle a call), `outputs` ("logits" or "probabilities") and `pad_id` (0).

The folder is checked when the engine opens (a clear error for a wrong path or manifest),
the model loaded on its first close call, so an engine that never meets one — a hook, a
read-only command — never pays for it. Pairs are read as (existing, new).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cortex_tui.errors import ConfigError
from cortex_tui.write.judge.contradiction import Verdict

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime
    from tokenizers import Tokenizer

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
LABEL_VERDICTS: dict[str, Verdict] = {
    "entailment": "restatement",
    "paraphrase": "restatement",
    "restatement": "restatement",
    "reinforce": "restatement",
    "duplicate": "repeat",
    "contradiction": "contradiction",
    "conflict": "contradiction",
    "update": "update",
    "neutral": "distinct",
    "unrelated": "distinct",
    "new": "distinct",
}
"""What each label a manifest may name makes of a close call."""
FEEDS = ("input_ids", "attention_mask", "token_type_ids")


class PairManifest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    labels: list[str] = Field(min_length=2)
    name: str | None = None
    max_length: int = Field(default=256, ge=8, le=8192)
    threshold: float = Field(default=0.8, gt=0.0, le=1.0)
    outputs: Literal["logits", "probabilities"] = "logits"
    pad_id: int = Field(default=0, ge=0)

    @field_validator("labels")
    @classmethod
    def _known_labels(cls, labels: list[str]) -> list[str]:
        lowered = [label.strip().lower() for label in labels]
        for label in lowered:
            if label not in LABEL_VERDICTS:
                raise ValueError(
                    f"label {label!r} is not one the judge reads; use " + ", ".join(LABEL_VERDICTS)
                )
        return lowered


class PairOpinion(BaseModel):
    """The model's most likely label for a pair, what it makes of it, and how sure."""

    label: str
    verdict: Verdict
    probability: float

    def describe(self) -> str:
        return f"{self.label} {self.probability:.2f}"


class PairModel:
    """A checked pair-model folder; the ONNX session is made on first use."""

    def __init__(self, folder: Path) -> None:
        """Check the folder now (files, manifest); raises `ConfigError` naming the fix."""
        self.folder = folder.expanduser()
        self.manifest = read_manifest(self.folder)
        self._lock = threading.Lock()
        self._loaded: tuple[onnxruntime.InferenceSession, Tokenizer] | None = None

    @property
    def name(self) -> str:
        return self.manifest.name or self.folder.name

    def opinion(self, existing: str, new: str) -> PairOpinion:
        """The most likely label for (existing, new); raises `ConfigError` when the model
        cannot be loaded or run (its files changed, or do not fit the manifest)."""
        import numpy as np

        session, tokenizer = self._load()
        probabilities = self._probabilities(session, tokenizer, existing, new)
        best = int(np.argmax(probabilities))
        label = self.manifest.labels[best]
        return PairOpinion(
            label=label, verdict=LABEL_VERDICTS[label], probability=float(probabilities[best])
        )

    def _load(self) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._open()
            return self._loaded

    def _open(self) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
        import onnxruntime
        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER_FILE))
            options = onnxruntime.SessionOptions()
            # One thread: the judge runs beside recall in the service, on small machines.
            options.intra_op_num_threads = 1
            session = onnxruntime.InferenceSession(
                str(self.folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime and tokenizers raise their own kinds
            raise ConfigError(
                f"cannot load the pair model in {self.folder} ({_first_line(exc)}); fix the "
                "folder or unset write.pair_model"
            ) from None
        unknown = [i.name for i in session.get_inputs() if i.name not in FEEDS]
        if unknown:
            raise ConfigError(
                f"the pair model in {self.folder} takes input {unknown[0]!r}; the slot fills "
                f"only {', '.join(FEEDS)}"
            )
        tokenizer.enable_truncation(self.manifest.max_length)
        return session, tokenizer

    def _probabilities(
        self,
        session: onnxruntime.InferenceSession,
        tokenizer: Tokenizer,
        existing: str,
        new: str,
    ) -> np.ndarray[Any, Any]:
        import numpy as np

        encoding = tokenizer.encode(existing, new)
        rows = {
            "input_ids": encoding.ids,
            "attention_mask": encoding.attention_mask,
            "token_type_ids": encoding.type_ids,
        }
        feeds = {}
        for spec in session.get_inputs():
            row = rows[spec.name]
            length = spec.shape[1] if len(spec.shape) > 1 else None
            if isinstance(length, int):
                pad = self.manifest.pad_id if spec.name == "input_ids" else 0
                row = (row + [pad] * length)[:length]
            dtype = np.int32 if spec.type == "tensor(int32)" else np.int64
            feeds[spec.name] = np.asarray([row], dtype=dtype)
        try:
            output = np.asarray(session.run(None, feeds)[0], dtype=np.float64)
        except Exception as exc:  # a graph that does not fit what the manifest says
            raise ConfigError(
                f"the pair model in {self.folder} failed to run ({_first_line(exc)})"
            ) from None
        scores = output.reshape(-1)
        if scores.shape[0] != len(self.manifest.labels):
            raise ConfigError(
                f"the pair model in {self.folder} gives {scores.shape[0]} scores but its "
                f"manifest names {len(self.manifest.labels)} labels; fix manifest.json"
            )
        if self.manifest.outputs == "probabilities":
            return scores
        shifted = np.exp(scores - scores.max())
        return np.asarray(shifted / shifted.sum())


def read_manifest(folder: Path) -> PairManifest:
    """The folder's manifest, once its three files are known to be there."""
    if not folder.is_dir():
        raise ConfigError(
            f"write.pair_model is {folder}, which is not a folder; give the folder holding "
            f"{MODEL_FILE}, {TOKENIZER_FILE} and {MANIFEST_FILE}, or unset it"
        )
    for name in (MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE):
        if not (folder / name).is_file():
            raise ConfigError(
                f"the pair model folder {folder} has no {name}; it needs {MODEL_FILE}, "
                f"{TOKENIZER_FILE} and {MANIFEST_FILE}"
            )
    try:
        raw = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        return PairManifest.model_validate(raw)
    except (OSError, ValueError) as exc:
        detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else _first_line(exc)
        raise ConfigError(
            f"{folder / MANIFEST_FILE} is not a valid pair-model manifest ({detail}); "
            'it needs {"labels": [...]} in output order'
        ) from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]

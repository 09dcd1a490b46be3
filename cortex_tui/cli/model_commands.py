"""`cortex-tui model add | list | remove`: the local embedding models.

`add` converts a sentence-transformers folder the user already has (cortex-tui itself
downloads nothing); using it for a store is a separate, deliberate step (`reembed --to`),
because vectors of two models never mix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cortex_tui.cli.args import OneLineParser, Subparsers, actions_of
from cortex_tui.cli.context import CommandContext
from cortex_tui.embed.calibration import THRESHOLDS, forget, remember, stored
from cortex_tui.embed.catalogue import (
    DEFAULT_MODEL,
    PACKAGED_EMBEDDER,
    PACKAGED_MODEL,
    ModelManifest,
    install,
    installed,
    remove,
)
from cortex_tui.embed.factory import make_embedder
from cortex_tui.errors import InvalidInputError
from cortex_tui.recall import gate_calibration


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser("model", help="the local embedding models: add, list, remove")
    actions = actions_of(p, "model_action")
    p = actions.add_parser(
        "add",
        parents=[common],
        help="convert a local sentence-transformers folder (BERT or MPNet) to ONNX",
        description="Convert a sentence-transformers model folder (config.json, "
        "model.safetensors, tokenizer.json, its pooling config) to ONNX without torch, "
        "check it against a reference forward pass, and add it under the models folder. "
        "Nothing is downloaded: fetch the folder with your model hub's own client.",
    )
    p.add_argument("path", help="the model's folder")
    p.add_argument("--name", help="the name to select it by (default: the folder's name)")
    p.add_argument(
        "--precision",
        choices=["int8", "fp32"],
        default="int8",
        help="int8: dynamic int8 linear layers, 2–2.5× faster (default); fp32: as trained",
    )
    p.add_argument("--replace", action="store_true", help="convert again over a model of that name")
    actions.add_parser("list", parents=[common], help="the models there are, and which is in use")
    p = actions.add_parser("remove", parents=[common], help="delete an added model's files")
    p.add_argument("name")


def cmd_model(ctx: CommandContext) -> int:
    action: Callable[[CommandContext], int] = {
        "add": _add,
        "list": _list,
        "remove": _remove,
    }[ctx.args.model_action]
    return action(ctx)


def _add(ctx: CommandContext) -> int:
    from cortex_tui.embed.convert.build import build_folder
    from cortex_tui.write.calibration import fit

    a = ctx.args
    models_dir = ctx.settings.models_path
    built = build_folder(Path(a.path), a.name, a.precision)
    manifest = install(models_dir, built, replace=a.replace)
    config = ctx.settings.embedder.model_copy(update={"kind": "onnx", "model": manifest.name})
    embedder = make_embedder(config, models_dir)
    thresholds = remember(models_dir, fit(embedder))
    scale = gate_calibration.remember(models_dir, gate_calibration.fit(embedder))
    lines = [
        f"added {manifest.name}: {manifest.architecture}, {manifest.dimension}-d, "
        f"{manifest.precision}, {manifest.pooling} pooling, up to {manifest.max_tokens} "
        f"tokens ({_size(ctx.settings.models_path / manifest.name)})",
        f"checked: fp32 within {manifest.reference_error:.1e} of the reference forward pass"
        + (
            f"; int8 at cosine ≥ {manifest.quantised_cosine:.3f} of fp32"
            if manifest.quantised_cosine is not None
            else ""
        ),
        "write-path thresholds for its cosines: "
        + ", ".join(
            f"{name.removesuffix('_threshold')} {getattr(thresholds, name):.2f}"
            for name in THRESHOLDS
        ),
        "relevance gate: its cosines on the reference model's scale, by rank (median "
        f"{scale.mine[50]:.2f} reads as {scale.reference[50]:.2f})",
        f"move this store to it: cortex-tui reembed --to {manifest.name}",
    ]
    ctx.emit(manifest, "\n".join(lines))
    return 0


def _list(ctx: CommandContext) -> int:
    from cortex_tui.write.calibration import judge_fingerprint

    models_dir = ctx.settings.models_path
    in_use = ctx.settings.embedder.model if ctx.settings.embedder.kind == "onnx" else None
    added = {m.name: m for m in installed(models_dir)}
    rows: list[dict[str, Any]] = []
    if DEFAULT_MODEL not in added:
        rows.append(_row(DEFAULT_MODEL, "the default: made from the packaged weights on first use"))
    rows.append(
        _row(PACKAGED_MODEL, f"the packaged file as it ships ({PACKAGED_EMBEDDER})", dim=384)
    )
    for name, manifest in added.items():
        row = _row(name, manifest.source, manifest, _size(models_dir / name))
        calibration = stored(models_dir, manifest.embedder, judge_fingerprint())
        row["write_thresholds"] = (
            calibration.model_dump(include=set(THRESHOLDS)) if calibration is not None else None
        )
        rows.append(row)
    for row in rows:
        row["in_use"] = row["name"] == in_use
    lines = [f"models folder: {models_dir}"]
    for row in rows:
        mark = "*" if row["in_use"] else " "
        shape = f"{row['dimension']}-d {row['precision']}" if row["dimension"] else "not made yet"
        size = f", {row['size']}" if row["size"] else ""
        lines.append(f"{mark} {row['name']:<28} {shape}{size}  {row['source']}")
    ctx.emit(rows, "\n".join(lines))
    return 0


def _row(
    name: str,
    source: str,
    manifest: ModelManifest | None = None,
    size: str | None = None,
    dim: int | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "embedder": manifest.embedder if manifest else None,
        "dimension": manifest.dimension if manifest else dim,
        "precision": manifest.precision if manifest else ("int8 storage" if dim else None),
        "source": source,
        "size": size,
    }


def _remove(ctx: CommandContext) -> int:
    name = ctx.args.name
    if ctx.settings.embedder.kind == "onnx" and ctx.settings.embedder.model == name:
        raise InvalidInputError(
            f"{name} is the configured embedder.model; move the store to another model "
            "first (cortex-tui reembed --to MODEL)"
        )
    manifest = remove(ctx.settings.models_path, name)
    forget(ctx.settings.models_path, manifest.embedder)
    gate_calibration.forget(ctx.settings.models_path, manifest.embedder)
    ctx.emit(manifest, f"removed {name} ({manifest.embedder})")
    return 0


def _size(folder: Path) -> str:
    total = sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
    return f"{total / 1e6:.0f} MB"


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"model": cmd_model}

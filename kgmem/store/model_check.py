"""The stored vectors' model against the loaded one: vectors of two models are not comparable, so a tenant
embedded with another model must be re-embedded (``kgmem rebuild``) before it is searched or added to."""

from __future__ import annotations

from ..errors import ModelMismatch

FIX = "run `kgmem rebuild` to re-embed with the loaded model"


def check_stored(stored: str | None, tenant: str, model_id: str) -> None:
    """Raise :class:`ModelMismatch` when ``tenant``'s vectors (``stored``: their model, which ``admin/setup`` reads
    with the rest; None for a tenant without vectors, which passes: its first write fixes the model) were made by
    another model than ``model_id``."""
    if stored is not None and stored != model_id:
        raise ModelMismatch(
            f"tenant '{tenant}' holds vectors made by {stored}, but the loaded embedding model is {model_id}",
            fix=FIX,
        )

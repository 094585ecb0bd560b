"""The stored vectors' model against the loaded one: vectors of two models are not comparable, so a tenant
embedded with another model must be re-embedded (``kgmem rebuild``) before it is searched or added to."""

from __future__ import annotations

from ..errors import ModelMismatch
from .session import Store

FIX = "run `kgmem rebuild` to re-embed with the loaded model"


def stored_model(store: Store, tenant: str) -> str | None:
    """The ``embedding_model`` of one embedded memory of ``tenant``; ``None`` when it has none."""
    rows = store.read("admin/embedding_model", tenant=tenant)
    return rows[0]["embedding_model"] if rows else None


def check_model(store: Store, tenant: str, model_id: str) -> None:
    """Raise :class:`ModelMismatch` when ``tenant``'s vectors were made by another model than ``model_id``.

    A tenant without embedded memories passes (its first write fixes the model).
    """
    check_stored(stored_model(store, tenant), tenant, model_id)


def check_stored(stored: str | None, tenant: str, model_id: str) -> None:
    """:func:`check_model` on the stored model already read (``admin/setup`` reads it with the rest)."""
    if stored is not None and stored != model_id:
        raise ModelMismatch(
            f"tenant '{tenant}' holds vectors made by {stored}, but the loaded embedding model is {model_id}",
            fix=FIX,
        )

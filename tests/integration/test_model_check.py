"""A tenant embedded with another model is refused with the fix named (kgmem.store.model_check)."""

from __future__ import annotations

import pytest

from kgmem.errors import KgmemError, ModelMismatch
from kgmem.store.model_check import FIX, check_model, stored_model


def test_an_empty_tenant_passes(store, tenant):
    assert stored_model(store, tenant) is None
    check_model(store, tenant, "any-model@1")


def test_the_loaded_model_passes_and_another_one_is_refused(mg, store, embedder):
    report = mg.ingest([{"id": "m1", "text": "The staging cluster runs on three nodes", "at": "2026-01-05"}])
    assert report.errors == []
    assert stored_model(store, mg.tenant) == embedder.model_id
    check_model(store, mg.tenant, embedder.model_id)

    rows = store.write("admin/set_embedding_model", tenant=mg.tenant, id="m1", embedding_model="other-model@9")
    assert rows == [{"updated": 1}]
    with pytest.raises(ModelMismatch) as err:
        check_model(store, mg.tenant, embedder.model_id)
    assert isinstance(err.value, KgmemError)
    assert err.value.fix == FIX == "run `kgmem rebuild` to re-embed with the loaded model"
    assert "other-model@9" in str(err.value) and embedder.model_id in str(err.value)
    assert FIX in str(err.value)


def test_another_tenant_is_not_affected(mg, store, embedder, other_tenant):
    mg.ingest([{"id": "m1", "text": "The staging cluster runs on three nodes", "at": "2026-01-05"}])
    store.write("admin/set_embedding_model", tenant=mg.tenant, id="m1", embedding_model="other-model@9")
    check_model(store, other_tenant, embedder.model_id)

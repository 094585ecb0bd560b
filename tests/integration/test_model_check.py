"""A tenant embedded with another model is refused with the fix named (kgmem.store.model_check)."""

from __future__ import annotations

import pytest

from kgmem.errors import KgmemError, ModelMismatch
from kgmem.store import schema
from kgmem.store.model_check import FIX, check_stored


def stored_model(store, tenant):
    return schema.setup(store, tenant, 1).embedding_model


def check_model(store, tenant, model_id):
    check_stored(stored_model(store, tenant), tenant, model_id)


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


def test_a_new_connection_refuses_the_tenant_on_its_first_recall_and_reads_of_slots_still_answer(mg, store, embedder):
    """The check runs in the connection's setup read (admin/setup): a recall of a tenant embedded with another
    model is refused before any channel runs; a slot read, which compares no vectors, is not."""
    from kgmem import MemoryGraph

    mg.ingest([{"id": "m1", "text": "The staging cluster runs on three nodes", "at": "2026-01-05"}])
    store.write("admin/set_embedding_model", tenant=mg.tenant, id="m1", embedding_model="other-model@9")
    fresh = MemoryGraph(tenant=mg.tenant, store=type(store)(store.connection), embedder=embedder)
    try:
        assert fresh.history("staging cluster", "lives_in") == []  # model=False: answers
        with pytest.raises(ModelMismatch, match="other-model@9"):
            fresh.recall("how many nodes does staging run on?")
    finally:
        fresh.store.close()

"""The harness registry (deskcheck/drift_guard/registry.py): registration order is kept and
forgetting an unknown harness is quiet."""

from __future__ import annotations


def test_the_registry_keeps_registration_order_and_forgets_quietly():
    from deskcheck.drift_guard import registry

    before = registry.registered()
    try:
        registry.register("dc_reg:First", object())
        registry.register("dc_reg:Second", object())
        keys = [k for k in registry.registered() if k.startswith("dc_reg:")]
        assert keys == ["dc_reg:First", "dc_reg:Second"], (
            f"registered guards must be listed in registration order; got {keys}")
        registry.unregister("dc_reg:First")
        registry.unregister("dc_reg:never_registered")  # forgetting an unknown key is no error
        keys = [k for k in registry.registered() if k.startswith("dc_reg:")]
        assert keys == ["dc_reg:Second"], f"unregister left {keys}, not ['dc_reg:Second']"
        registry.registered().clear()
        assert "dc_reg:Second" in registry.registered(), (
            "registered() handed out the registry itself: clearing the copy unregistered guards")
    finally:
        for key in set(registry.registered()) - set(before):
            registry.unregister(key)

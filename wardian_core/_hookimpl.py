"""The marker a provider decorates its hook implementations with."""

import pluggy

hookimpl = pluggy.HookimplMarker("wardian")

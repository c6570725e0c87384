"""Rally's ``esrally.track`` (2.13): the track classes (``from esrally.track import Track``).

Rally's ``from .track import *`` also re-exports the ``exceptions`` module its track module
imports; plugins rely on ``from esrally.track import exceptions``, so it is here too."""

from esrally import exceptions
from esrally.track import track as _track
from esrally.track.track import *  # noqa: F403 - Rally's own "from .track import *"

__all__ = ["exceptions", *_track.__all__]

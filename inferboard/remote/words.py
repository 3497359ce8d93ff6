"""Join codes that are easy to read aloud, and the short verification string.

A join code is a number and two words, ``"7-amber-falcon"`` (the shape magic-wormhole made
familiar). The words come from ``WORDS``: 256 short, common English words, chosen so that no two
sound alike or share their first three letters, which makes a code hard to mishear and lets a
typed prefix identify a word. A code has 999 × 256 × 256 (about 65 million) values; the whole code
is the password of the key exchange and never travels in the clear.

The verification string is six digits derived from the session key ("428 917"): both people read
theirs aloud; two different strings mean that someone sits between the two machines.
"""

from __future__ import annotations

import re
import secrets

WORDS: tuple[str, ...] = tuple("""
acorn adult agent album alpine amber anchor angle ankle apple april arctic armor arrow
artist autumn avocado badge bakery bamboo banjo barley basket beacon beetle bicycle binder
biscuit blanket blossom border bottle bounce bracket breeze bridge broccoli bubble bucket
buffalo bundle butter cabin cactus camera candle captain carpet castle cellar cement chapter
cherry chimney circus citrus clover cobalt coconut collar comet copper cotton cousin cradle
cricket crystal cupboard dancer dawn desert dinner dolphin donkey dragon dune eagle echo
elbow elephant ember engine fable falcon feather fiddle figure finger flannel flute forest
fossil fountain fox garden gecko giant ginger glacier globe goblet gopher gravel guitar
hammer harbor hazel helmet hermit hockey honey horizon hunter iceberg igloo insect island
ivory jacket jaguar jelly jigsaw jungle kayak kernel kettle kitten ladder lagoon lantern
laptop lemon letter lily linen lizard lobster locket lunar magnet mango maple marble meadow
melon mirror mitten monkey mosaic muffin mustard napkin nectar needle nickel noodle nugget
nutmeg oasis oboe ocean olive onion opal orbit orchid otter oyster paddle palace panda
parrot pasta peanut pebble pencil pepper pickle pillow planet plum pocket polar poppy potato
pretzel pumpkin puzzle quartz quilt rabbit radio raisin raven ribbon riddle river robin
rocket saddle salmon sandal sardine satin scarf season shadow shovel silver sketch sleigh
socket spider sponge sprout squash statue stereo sugar summit sunset sweater tablet tadpole
tango teapot tennis thimble thunder tiger timber toast tomato tractor trumpet tulip tunnel
turtle umbrella unicorn valley vanilla velvet violin volcano waffle wagon walnut window
wizard wombat yacht yarn yogurt zebra zipper
""".split())

NUMBER_MAX = 999
_CODE = re.compile(r"^([1-9][0-9]{0,2})-([a-z]+)-([a-z]+)$")


class BadCode(ValueError):
    """The text typed is not a join code (what is wrong is in the message)."""


def make_code(rng: secrets.SystemRandom | None = None) -> str:
    """A fresh random join code, ``"<number>-<word>-<word>"``."""
    rng = rng or secrets.SystemRandom()
    return f"{rng.randint(1, NUMBER_MAX)}-{rng.choice(WORDS)}-{rng.choice(WORDS)}"


def normalize_code(text: str) -> str:
    """The canonical code for what a person typed: case, spaces, dots and extra dashes do not
    matter, and a word may be given by its first three letters or more. Raises BadCode."""
    parts = [p for p in re.split(r"[\s\-_.,/]+", text.strip().lower()) if p]
    if len(parts) != 3:
        raise BadCode("a join code is a number and two words, like 7-amber-falcon")
    number, *words = parts
    if not number.isdigit() or not 1 <= int(number) <= NUMBER_MAX:
        raise BadCode(f"a join code starts with a number from 1 to {NUMBER_MAX}")
    full = []
    for word in words:
        matches = [w for w in WORDS if w.startswith(word)] if len(word) >= 3 else []
        exact = [w for w in matches if w == word]
        if not (exact or len(matches) == 1):
            raise BadCode(f"'{word}' is not one of the code words")
        full.append(exact[0] if exact else matches[0])
    code = f"{int(number)}-{full[0]}-{full[1]}"
    assert _CODE.match(code)
    return code


def verification_string(digest: bytes) -> str:
    """Six digits, in two groups of three, from the first bytes of ``digest``."""
    value = int.from_bytes(digest[:8], "big") % 1_000_000
    return f"{value // 1000:03d} {value % 1000:03d}"

"""Synthetic image-caption data: 1 to 4 shapes of one colour on a dark, noisy background.

Every sample draws a count (1-4), a colour and a shape (circle, square, triangle); the shapes are
drawn into distinct cells of a 2x2 grid with a random size and a random offset inside the cell,
and the caption names what is there: "two red circles", "one blue square". Captions are token ids
over a tiny fixed vocabulary, framed by BOS and EOS; all of them have the same length (3 words),
so a batch needs no padding.

Everything is computed from numpy's PCG64 generator seeded by (seed, index of the sample), so a
sample does not depend on which others were generated with it, and the same seed gives the same
data bit for bit on every machine.
"""
import numpy as np

COUNTS = ["one", "two", "three", "four"]
COLOURS = ["red", "green", "blue", "yellow", "magenta", "cyan"]
SHAPES = ["circle", "square", "triangle"]
RGB = {
    "red": (0.9, 0.15, 0.1), "green": (0.15, 0.8, 0.2), "blue": (0.15, 0.3, 0.95),
    "yellow": (0.9, 0.85, 0.1), "magenta": (0.85, 0.15, 0.8), "cyan": (0.1, 0.8, 0.85),
}

SPECIALS = ["<pad>", "<bos>", "<eos>"]
VOCAB = SPECIALS + COUNTS + COLOURS + SHAPES + [s + "s" for s in SHAPES]
TOK = {w: i for i, w in enumerate(VOCAB)}
PAD, BOS, EOS = TOK["<pad>"], TOK["<bos>"], TOK["<eos>"]
CAPTION_LEN = 5  # <bos> count colour shape <eos>


def caption_words(count, colour, shape):
    """The caption of @count (1-4) shapes: "two red circles"."""
    return [COUNTS[count - 1], colour, shape if count == 1 else shape + "s"]


def encode(words):
    return [BOS] + [TOK[w] for w in words] + [EOS]


def decode(ids):
    """Words of a token-id sequence up to the first EOS (BOS and PAD dropped)."""
    out = []
    for i in ids:
        i = int(i)
        if i == EOS:
            break
        if i not in (BOS, PAD):
            out.append(VOCAB[i])
    return " ".join(out)


_GRIDS = {}


def _grid(size):
    g = _GRIDS.get(size)
    if g is None:
        g = _GRIDS[size] = np.mgrid[0:size, 0:size].astype(np.float32) + 0.5
    return g


def _draw(img, shape, cy, cx, r, rgb):
    yy, xx = _grid(img.shape[0])
    dy, dx = yy - cy, xx - cx
    if shape == "circle":
        inside = dy * dy + dx * dx <= r * r
    elif shape == "square":
        h = r * 0.85
        inside = (np.abs(dy) <= h) & (np.abs(dx) <= h)
    else:  # an upward triangle inscribed in the radius
        top, bottom = cy - r, cy + r * 0.8
        t = (yy - top) / (bottom - top)  # 0 at the apex, 1 at the base
        inside = (t >= 0) & (t <= 1) & (np.abs(dx) <= t * r * 0.95)
    img[inside] = rgb


def make_sample(seed, index, size=32):
    """(image float32 [3, size, size] in [0, 1], caption token ids [CAPTION_LEN], (count, colour, shape))."""
    rng = np.random.Generator(np.random.PCG64([seed, index]))
    count = int(rng.integers(1, 5))
    colour = COLOURS[int(rng.integers(len(COLOURS)))]
    shape = SHAPES[int(rng.integers(len(SHAPES)))]
    img = np.empty((size, size, 3), np.float32)
    img[:] = rng.uniform(0.0, 0.12, 3).astype(np.float32)
    cell = size / 2
    cells = rng.permutation(4)[:count]
    base = np.array(RGB[colour], np.float32)
    for c in cells:
        r = float(rng.uniform(0.26, 0.38)) * cell
        cy = (c // 2) * cell + cell / 2 + float(rng.uniform(-1, 1)) * (cell / 2 - r)
        cx = (c % 2) * cell + cell / 2 + float(rng.uniform(-1, 1)) * (cell / 2 - r)
        rgb = np.clip(base + rng.uniform(-0.08, 0.08, 3).astype(np.float32), 0, 1)
        _draw(img, shape, cy, cx, r, rgb)
    img += rng.normal(0.0, 0.03, img.shape).astype(np.float32)
    np.clip(img, 0.0, 1.0, out=img)
    cap = np.array(encode(caption_words(count, colour, shape)), np.int64)
    return img.transpose(2, 0, 1).copy(), cap, (count, colour, shape)


def make_dataset(seed, n, size=32, start=0):
    """(images float32 [n, 3, size, size], captions int64 [n, CAPTION_LEN]) of samples start..start+n-1."""
    imgs = np.empty((n, 3, size, size), np.float32)
    caps = np.empty((n, CAPTION_LEN), np.int64)
    for i in range(n):
        imgs[i], caps[i], _ = make_sample(seed, start + i, size)
    return imgs, caps


def render_ascii(img):
    """A coarse text rendering of one image (for eyeballing the generator)."""
    lum = img.mean(0)
    chars = " .:-=+*#%@"
    rows = []
    for y in range(0, lum.shape[0], 2):
        rows.append("".join(chars[min(int(v * 10), 9)] for v in lum[y, ::1]))
    return "\n".join(rows)


if __name__ == "__main__":
    img, cap, meta = make_sample(0, 0)
    print(meta, decode(cap))
    print(render_ascii(img))

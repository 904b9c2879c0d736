"""The wake word detector's features and network, as audio/wake computes
them in Go: log-mel features, then a causal stack of dilated 1-D
convolutions that gives one score every 20 ms. A change here needs the same
change in audio/wake (its parity test compares the two on a fixed WAV).
"""

import json
import struct

import numpy as np
import torch
from torch import nn

SR = 16000
FRAME = 400  # 25 ms window
HOP = 160  # 10 ms
NFFT = 512
NMELS = 40
FMIN = 60.0
FMAX = 7600.0
LOG_FLOOR = 1e-6
# Late reverberation taken out of the mel energies (dereverb): rt60 the
# reverberation time assumed (s), delay how many frames after the direct
# sound the late part starts, floor the least of a band's energy kept.
# DEREVERB is what logmel does (None: nothing taken out, as the embedded
# weights were trained); DEREVERB_ON what finetune.py --dereverb sets.
DEREVERB_ON = {"rt60": 3.0, "delay": 5, "floor": 0.1}
DEREVERB = None

CHANNELS = 64
HIDDEN = 32
KERNEL = 3
STRIDE = 2  # the first layer's, in frames: one score per 20 ms
DILATIONS = (1, 2, 4, 8, 16)


def _mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _imel(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def filterbank():
    """Triangular filters evenly spaced on the HTK mel scale, on the power
    spectrum's NFFT/2+1 bins."""
    bins = np.arange(NFFT // 2 + 1) * SR / NFFT
    pts = _imel(np.linspace(_mel(FMIN), _mel(FMAX), NMELS + 2))
    fb = np.zeros((NMELS, NFFT // 2 + 1))
    for i in range(NMELS):
        lo, c, hi = pts[i], pts[i + 1], pts[i + 2]
        fb[i] = np.maximum(0.0, np.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)))
    return fb


WINDOW = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME) / FRAME)  # periodic Hann
FB = filterbank()


def dereverb(e, rt60, delay, floor):
    """Mel energies e (frames, bands) with an estimate of their late
    reverberation subtracted: the energy from delay frames back on,
    averaged with the decay of a room of reverberation time rt60 and
    decayed over the delay, is taken off each band, which keeps at least
    floor of its energy. A frame depends only on the frames before it."""
    a = float(np.exp(-6.0 * np.log(10.0) / rt60 * HOP / SR))
    ad = a ** delay
    out = np.empty_like(e)
    r = np.zeros(e.shape[1])
    for t in range(len(e)):
        if t >= delay:
            r = a * r + (1.0 - a) * e[t - delay]
        else:
            r = a * r
        out[t] = np.maximum(e[t] - ad * r, floor * e[t])
    return out


def logmel(x):
    """Log-mel features of x (floats, full scale 1.0), one row per 10 ms
    frame of 25 ms: frame k covers samples [k*HOP, k*HOP+FRAME); with
    DEREVERB set, the late reverberation taken out first (dereverb)."""
    x = np.asarray(x, dtype=np.float64)
    n = 1 + (len(x) - FRAME) // HOP if len(x) >= FRAME else 0
    if n == 0:
        return np.zeros((0, NMELS), dtype=np.float32)
    idx = np.arange(FRAME)[None, :] + HOP * np.arange(n)[:, None]
    spec = np.fft.rfft(x[idx] * WINDOW, NFFT)
    power = spec.real ** 2 + spec.imag ** 2
    e = power @ FB.T
    if DEREVERB is not None:
        e = dereverb(e, **DEREVERB)
    return np.log(e + LOG_FLOOR).astype(np.float32)


def receptive_steps():
    """How many first-layer steps the dilated layers eat (valid convolutions)."""
    return sum((KERNEL - 1) * d for d in DILATIONS)


def step_end_samples(n_steps):
    """The position (samples) in a clip at which each output step is
    known: the end of the newest frame it depends on."""
    j = np.arange(n_steps)
    i = j + receptive_steps()  # first-layer index
    newest = STRIDE * i + (KERNEL - 1)
    return newest * HOP + FRAME


def pad_frames():
    """How many frames a stream's first frame is repeated before it, so
    that the network scores from the first frame on rather than once its
    receptive field (1.3 s) has filled: a file that starts with the phrase
    is heard."""
    return STRIDE * receptive_steps() + KERNEL - 1


def stream_features(x):
    """A stream's features as audio/wake feeds them to the network: the
    first frame repeated pad_frames() times, then every frame."""
    f = logmel(x)
    return np.concatenate([np.repeat(f[:1], pad_frames(), axis=0), f]) if len(f) else f


def stream_step_end_samples(n_steps):
    """step_end_samples for stream_features: step j is known at the end of
    the stream's frame STRIDE·j."""
    return STRIDE * np.arange(n_steps) * HOP + FRAME


class Net(nn.Module):
    """Causal dilated convolutions with residual connections; every layer
    is valid (no padding), so the network over a long stream gives exactly
    what a streaming implementation gives step by step."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(NMELS))
        self.register_buffer("scale", torch.ones(NMELS))
        self.l1 = nn.Conv1d(NMELS, CHANNELS, KERNEL, stride=STRIDE)
        self.bn1 = nn.BatchNorm1d(CHANNELS)
        self.convs = nn.ModuleList(nn.Conv1d(CHANNELS, CHANNELS, KERNEL, dilation=d) for d in DILATIONS)
        self.bns = nn.ModuleList(nn.BatchNorm1d(CHANNELS) for _ in DILATIONS)
        self.h1 = nn.Conv1d(CHANNELS, HIDDEN, 1)
        self.h2 = nn.Conv1d(HIDDEN, 1, 1)
        self.drop = nn.Dropout(0.1)

    def forward(self, feats):
        """feats (batch, frames, NMELS) → logits (batch, steps)."""
        x = ((feats - self.mean) * self.scale).transpose(1, 2)
        h = torch.relu(self.bn1(self.l1(x)))
        for conv, bn, d in zip(self.convs, self.bns, DILATIONS):
            y = torch.relu(bn(conv(self.drop(h))))
            h = h[:, :, (KERNEL - 1) * d:] + y
        h = torch.relu(self.h1(self.drop(h)))
        return self.h2(h).squeeze(1)


def _fold(conv, bn):
    """A convolution followed by batch normalisation, as one convolution."""
    w = conv.weight.detach().double()
    b = conv.bias.detach().double()
    s = bn.weight.detach().double() / torch.sqrt(bn.running_var.double() + bn.eps)
    return (w * s[:, None, None]).float(), ((b - bn.running_mean.double()) * s + bn.bias.detach().double()).float()


MAGIC = b"JIBOWAKE"
FORMAT = 2


# How each weight is stored: the dilated layers, most of the weights, in
# 4 bits; the first layer and the head, which see every input, in 8.
FOUR_BIT = tuple("conv%d.w" % k for k in range(len(DILATIONS)))


def _dtype(name):
    if name in FOUR_BIT:
        return "i4"
    return "i8" if name.endswith(".w") else "f32"


def _quantize_rows(w, top):
    """w as integers from -top to top with one scale per row (output
    channel): symmetric, the row's largest magnitude at top."""
    w = w.detach().double().reshape(w.shape[0], -1)
    scale = w.abs().max(dim=1).values / float(top)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.clamp(torch.round(w / scale[:, None]), -top, top).to(torch.int8)
    return q, scale.float()


def _pack4(q):
    """4-bit two's complement values, two to a byte, the first in the low
    nibble."""
    v = (q.flatten().numpy().astype(np.int16) & 0xF).astype(np.uint8)
    if len(v) % 2:
        v = np.concatenate([v, np.zeros(1, np.uint8)])
    return (v[0::2] | (v[1::2] << 4)).tobytes()


def _tensors(net):
    """The network's tensors in the file's order, batch normalisation
    folded into the convolutions before it."""
    t = [("mean", net.mean.float()), ("scale", net.scale.float())]
    w, b = _fold(net.l1, net.bn1)
    t += [("l1.w", w), ("l1.b", b)]
    for k, (conv, bn) in enumerate(zip(net.convs, net.bns)):
        w, b = _fold(conv, bn)
        t += [("conv%d.w" % k, w), ("conv%d.b" % k, b)]
    return t + [("h1.w", net.h1.weight.detach()[:, :, 0]), ("h1.b", net.h1.bias.detach()),
                ("h2.w", net.h2.weight.detach()[:, :, 0]), ("h2.b", net.h2.bias.detach())]


def to_bytes(net, detect):
    """The network as audio/wake reads it: MAGIC, a little-endian uint32
    length, a JSON header (the features' and the network's shape, the
    late reverberation taken out of the features (DEREVERB, absent for
    none), the detection settings, each tensor's name, shape and
    storage), then the
    tensors in the header's order. Weights ("*.w") are stored as
    integers with a float32 scale per output channel (the scales, then the
    values): the dilated layers' as 4-bit ("i4", two to a byte, the first
    in the low nibble), the others as int8 ("i8"); everything else as
    float32 ("f32"), all little-endian."""
    net.eval()
    tensors = _tensors(net)
    header = {
        "format": FORMAT,
        "sample_rate": SR, "frame": FRAME, "hop": HOP, "nfft": NFFT, "mels": NMELS,
        "fmin": FMIN, "fmax": FMAX, "log_floor": LOG_FLOOR,
        "channels": CHANNELS, "hidden": HIDDEN, "kernel": KERNEL, "stride": STRIDE,
        "dilations": list(DILATIONS),
        "detect": detect,
        "tensors": [{"name": n, "shape": list(t.shape), "dtype": _dtype(n)} for n, t in tensors],
    }
    if DEREVERB is not None:
        header["dereverb"] = dict(DEREVERB)
    h = json.dumps(header, sort_keys=True).encode()
    out = [MAGIC, struct.pack("<I", len(h)), h]
    for n, t in tensors:
        dt = _dtype(n)
        if dt == "i4":
            q, scale = _quantize_rows(t, 7)
            out += [scale.numpy().astype("<f4").tobytes(), _pack4(q)]
        elif dt == "i8":
            q, scale = _quantize_rows(t, 127)
            out += [scale.numpy().astype("<f4").tobytes(), q.numpy().tobytes()]
        else:
            out.append(t.detach().cpu().numpy().astype("<f4").tobytes())
    return b"".join(out)


def export(net, path, detect):
    """Writes the network for audio/wake (to_bytes)."""
    with open(path, "wb") as f:
        f.write(to_bytes(net, detect))


def with_detect(b, detect):
    """A model file with its detection settings replaced (the weights kept
    byte for byte)."""
    if b[:len(MAGIC)] != MAGIC:
        raise ValueError("not a wake model file")
    n = struct.unpack("<I", b[len(MAGIC):len(MAGIC) + 4])[0]
    h = json.loads(b[len(MAGIC) + 4:len(MAGIC) + 4 + n])
    h["detect"] = detect
    hb = json.dumps(h, sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(hb)) + hb + b[len(MAGIC) + 4 + n:]


def from_bytes(b):
    """A model file read back: the network audio/wake runs (its weights
    as stored, batch normalisation as the identity) and its detection
    settings."""
    if b[:len(MAGIC)] != MAGIC:
        raise ValueError("not a wake model file")
    n = struct.unpack("<I", b[len(MAGIC):len(MAGIC) + 4])[0]
    h = json.loads(b[len(MAGIC) + 4:len(MAGIC) + 4 + n])
    if h["format"] != FORMAT:
        raise ValueError("format %d, want %d" % (h["format"], FORMAT))
    data = memoryview(b)[len(MAGIC) + 4 + n:]
    vals = {}
    for t in h["tensors"]:
        size = int(np.prod(t["shape"]))
        if t["dtype"] == "i4":
            rows, packed = t["shape"][0], (size + 1) // 2
            scale = np.frombuffer(data[:4 * rows], dtype="<f4").astype(np.float32)
            b = np.frombuffer(data[4 * rows:4 * rows + packed], dtype=np.uint8)
            nib = np.stack([b & 0xF, b >> 4], axis=1).flatten()[:size].astype(np.int16)
            q = np.where(nib > 7, nib - 16, nib).astype(np.float32)
            v = q.reshape(rows, -1) * scale[:, None]
            data = data[4 * rows + packed:]
        elif t["dtype"] == "i8":
            rows = t["shape"][0]
            scale = np.frombuffer(data[:4 * rows], dtype="<f4").astype(np.float32)
            q = np.frombuffer(data[4 * rows:4 * rows + size], dtype=np.int8).astype(np.float32)
            v = q.reshape(rows, -1) * scale[:, None]
            data = data[4 * rows + size:]
        else:
            v = np.frombuffer(data[:4 * size], dtype="<f4").astype(np.float32)
            data = data[4 * size:]
        vals[t["name"]] = torch.from_numpy(np.ascontiguousarray(v).reshape(t["shape"]))
    if len(data):
        raise ValueError("%d bytes after the last tensor" % len(data))
    net = Net()
    with torch.no_grad():
        net.mean.copy_(vals["mean"])
        net.scale.copy_(vals["scale"])
        convs = [(net.l1, net.bn1, "l1")] + [(c, bn, "conv%d" % k) for k, (c, bn) in enumerate(zip(net.convs, net.bns))]
        for conv, bn, name in convs:
            conv.weight.copy_(vals[name + ".w"])
            conv.bias.copy_(vals[name + ".b"])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.zero_()
        net.h1.weight.copy_(vals["h1.w"][:, :, None])
        net.h1.bias.copy_(vals["h1.b"])
        net.h2.weight.copy_(vals["h2.w"][:, :, None])
        net.h2.bias.copy_(vals["h2.b"])
    net.eval()
    return net, h["detect"]


def quantized(net):
    """The network as it is stored and run: 4- and 8-bit weights
    (to_bytes, then from_bytes). Thresholds are chosen and fixtures made
    with it."""
    return from_bytes(to_bytes(net, {}))[0]


def detect(probs, threshold, smooth, refractory, hold=0):
    """The decision audio/wake makes from the step probabilities: their
    mean over the last smooth steps reaching threshold wakes, or with hold
    above 0 the least of the last hold steps reaching it; then nothing for
    refractory steps. Returns the step indexes that woke."""
    out = []
    last = -(10 ** 9)
    c = np.cumsum(np.concatenate([[0.0], probs]))
    for j in range(len(probs)):
        if hold > 0:
            m = probs[max(0, j - hold + 1):j + 1].min() if j + 1 >= hold else 0.0
        else:
            lo = max(0, j - smooth + 1)
            m = (c[j + 1] - c[lo]) / smooth
        if m >= threshold and j - last > refractory:
            out.append(j)
            last = j
    return out


def dereverb_fixture(wav, out, setting=None):
    """What audio/wake's dereverb must compute from wav whatever model is
    embedded (TestDereverbParity): the features of every third frame with
    the late reverberation taken out as setting (DEREVERB_ON if None)
    says."""
    import wave
    global DEREVERB
    with wave.open(wav) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    keep, DEREVERB = DEREVERB, dict(setting or DEREVERB_ON)
    try:
        f, d = logmel(pcm.astype(np.float64) / 32768), DEREVERB
    finally:
        DEREVERB = keep
    rows = list(range(0, len(f), 3))
    with open(out, "w") as fo:
        json.dump({"wav": wav.rsplit("/", 1)[-1], "dereverb": d, "frames": rows,
                   "features": [[round(float(v), 5) for v in f[r]] for r in rows]}, fo)
        fo.write("\n")


if __name__ == "__main__":
    import sys
    # python3 scripts/wake/model.py WAV OUT: the dereverb parity fixture.
    dereverb_fixture(sys.argv[1], sys.argv[2])

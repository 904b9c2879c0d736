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


def logmel(x):
    """Log-mel features of x (floats, full scale 1.0), one row per 10 ms
    frame of 25 ms: frame k covers samples [k*HOP, k*HOP+FRAME)."""
    x = np.asarray(x, dtype=np.float64)
    n = 1 + (len(x) - FRAME) // HOP if len(x) >= FRAME else 0
    if n == 0:
        return np.zeros((0, NMELS), dtype=np.float32)
    idx = np.arange(FRAME)[None, :] + HOP * np.arange(n)[:, None]
    spec = np.fft.rfft(x[idx] * WINDOW, NFFT)
    power = spec.real ** 2 + spec.imag ** 2
    return np.log(power @ FB.T + LOG_FLOOR).astype(np.float32)


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


def export(net, path, detect):
    """Writes the network for audio/wake: MAGIC, a little-endian uint32
    length, a JSON header (the features' and the network's shape, the
    detection settings, the tensors' names and shapes), then the tensors as
    little-endian float32 in the header's order."""
    net.eval()
    tensors = [("mean", net.mean.float()), ("scale", net.scale.float())]
    w, b = _fold(net.l1, net.bn1)
    tensors += [("l1.w", w), ("l1.b", b)]
    for k, (conv, bn) in enumerate(zip(net.convs, net.bns)):
        w, b = _fold(conv, bn)
        tensors += [("conv%d.w" % k, w), ("conv%d.b" % k, b)]
    tensors += [("h1.w", net.h1.weight.detach()[:, :, 0]), ("h1.b", net.h1.bias.detach()),
                ("h2.w", net.h2.weight.detach()[:, :, 0]), ("h2.b", net.h2.bias.detach())]
    header = {
        "format": 1,
        "sample_rate": SR, "frame": FRAME, "hop": HOP, "nfft": NFFT, "mels": NMELS,
        "fmin": FMIN, "fmax": FMAX, "log_floor": LOG_FLOOR,
        "channels": CHANNELS, "hidden": HIDDEN, "kernel": KERNEL, "stride": STRIDE,
        "dilations": list(DILATIONS),
        "detect": detect,
        "tensors": [{"name": n, "shape": list(t.shape)} for n, t in tensors],
    }
    h = json.dumps(header, sort_keys=True).encode()
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<I", len(h)))
        f.write(h)
        for _, t in tensors:
            f.write(t.detach().cpu().numpy().astype("<f4").tobytes())


def detect(probs, threshold, smooth, refractory):
    """The decision audio/wake makes from the step probabilities: their
    mean over the last smooth steps reaching threshold wakes, then nothing
    for refractory steps. Returns the step indexes that woke."""
    out = []
    last = -(10 ** 9)
    c = np.cumsum(np.concatenate([[0.0], probs]))
    for j in range(len(probs)):
        lo = max(0, j - smooth + 1)
        m = (c[j + 1] - c[lo]) / smooth
        if m >= threshold and j - last > refractory:
            out.append(j)
            last = j
    return out

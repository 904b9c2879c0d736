"""Speech, noise and room material for training the wake word detector.

Everything here is made on this machine from espeak-ng voices and from noise
synthesised with numpy: no recordings, and no other speech synthesiser (the
evaluation's voices stay unheard). Every random choice comes from a seeded
generator, so a run is repeatable for given espeak-ng, sox and numpy.
"""

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np

SR = 16000

# The wake phrase as espeak-ng is asked to say it: spellings and phoneme
# strings that give the ways people say "jibo" (/dZi:boU/ mostly, /dZIboU/
# too), with and without a pause after "hey", and the stress moved.
WAKE_TEXTS = [
    "hey jibo", "hey jibo", "hey jibo", "hey, jibo", "hey jibo!", "hey jibo?",
    "hey jeebo", "hey jibbo", "hey, jibbo", "hey gibo", "hay jibo",
    "[[h'eI dZi:b'oU]]", "[[h'eI dZ'i:b@U]]", "[[h,eI dZ'i:boU]]",
]

# Wake decoys: close to the phrase, but not it. "gee bo" and a bare "jibo"
# teach that the phrase needs its "hey".
DECOYS = [
    "hey jimbo", "hey joe", "gee bo", "hey jay", "jumbo", "hey jim", "hey jib",
    "hey bo", "jibo", "hey gibbon", "hey jello", "hey judo", "hey dumbo",
    "hey hobo", "hey gizmo", "hey bingo", "hey jeep", "hey jimmy", "hey jeeves",
    "hey deebo", "hey kibo", "hey tibo", "hey zeebo", "hey cheebo", "hey jibe",
    "hey jeans", "hey elbow", "hey rainbow", "hey jill", "hey joey", "hey gina",
    "hey limbo", "hey jingo", "hey jethro", "hey zippo", "hey there", "hey you",
    "say jibo", "the jibo", "gee bow", "hey g", "hey jo", "hey jeebus",
    "hey jumbo", "hey jibber", "hey geeky", "hey jade", "hey josh", "hey bobo",
    "jimbo", "okay jim", "hey rhino", "hey reno", "hey vito", "hey beebo",
    "hey jabba", "hey jerome", "jay bo", "hey jewel", "hey gym", "hey june",
]

# Near misses for the fine-tuning's decoys (finetune.py --crowd): words that
# share the phrase's rhythm or most of its sounds, alone or after "hey",
# and the wake decoys' hardest ones again. None is a way to say the phrase.
NEAR_MISSES = [
    "hey jibber", "jibber jabber", "hey jabber", "hey jimbo", "hey joe", "gee bo",
    "hey jibbers", "hey jiggle", "hey jigsaw", "hey dibble", "hey jiffy",
    "hey jingle", "hey gumbo", "hey mumbo", "hey combo", "hey jabbo",
    "hey jumbo jet", "hey jimbob", "hey gee", "hey gee whiz", "hey jeeves",
    "hey bibo", "hey dibo", "hey vibo", "hey lido", "hey libo", "hey nemo",
    "hey tempo", "hey bilbo", "hey kimbo", "hey jambo", "hey jive",
    "hey chip", "hey chibi", "hey shibboleth", "jiminy", "gee whiz bo", "hey jibbering",
    "jiggy", "hey giblets", "hey jubilee", "hey gilbert", "hey jib jab",
]

# Everyday speech for training: what people say near a robot that is not
# for it. None of it is in the test sets (scripts/gen-audio-testset.sh).
SENTENCES = [
    "I think we should leave before the traffic gets bad.",
    "Did anyone feed the cat this morning?",
    "The soup needs a little more salt, I think.",
    "Where did you put the scissors after you used them?",
    "My phone battery is almost dead again.",
    "We are out of milk, can you get some on the way home?",
    "The kids have a school trip to the museum next week.",
    "It's getting cold, close the window please.",
    "I can't find my glasses anywhere.",
    "Let's watch a film tonight, something funny.",
    "The plumber is coming on Tuesday between nine and twelve.",
    "Have you seen the new bakery on the corner?",
    "She's been learning the piano for three years now.",
    "Could you turn on the lights in the hallway?",
    "The car needs new tyres before winter.",
    "I'll call you back after lunch.",
    "That was the best pasta I've had in ages.",
    "Don't forget your umbrella, it looks like rain.",
    "We should repaint the kitchen this summer.",
    "How was your day at work?",
    "The garden looks wonderful after all that rain.",
    "Grandma is visiting us at the weekend.",
    "I need to finish this report by Friday.",
    "Put the dishes in the dishwasher when you're done.",
    "Who left the front door open?",
    "The dog barked at the postman again.",
    "Let me know when you're ready to go.",
    "I'm going to bed early tonight, I'm exhausted.",
    "This song reminds me of our holiday by the sea.",
    "Can you help me with my homework later?",
    "The internet has been really slow all day.",
    "We're having fish and chips for dinner.",
    "My sister just moved into a flat near the station.",
    "The meeting ran over by half an hour.",
    "I love the smell of fresh coffee in the morning.",
    "There's a spider in the bath, can you get it out?",
    "The bus was late so I walked instead.",
    "Have you booked the tickets for the concert?",
    "I'll water the tomatoes before I leave.",
    "Jenny said she would bring a salad.",
    "Joey and Jim are coming over to play cards.",
    "Bob, the game starts at seven, don't be late.",
    "The gym was packed this evening.",
    "Jo, can you grab the jumbo pack of batteries?",
    "A jeep drove past with its music really loud.",
    "Gina bought a gibbon toy for the baby.",
    "Jay told me the bingo night was cancelled.",
    "The elbow of this pipe is leaking.",
    "Look, there's a rainbow over the hills.",
    "We went to see the hippos at the zoo.",
    "Hey, could you pass me that towel?",
    "Hey everyone, dinner is ready.",
    "Hey, watch out for that step.",
    "Hi there, nice to meet you.",
    "Oh hey, I didn't see you come in.",
    "Okay, let's get started then.",
    "Hello, is anybody home?",
    "Good evening, sorry I'm late.",
    "Morning! Did you sleep well?",
    "Thanks a lot, that's really kind of you.",
    "I wonder what time the shop closes today.",
    "The timer on my watch keeps beeping.",
    "Turn the radio down, I'm on the phone.",
    "What's the weather going to be like tomorrow?",
    "Remember to set the alarm for six.",
    "The volume on the television is far too high.",
    "Tell your brother to come downstairs.",
    "Who wants another cup of tea?",
    "The library books are due back on Monday.",
    "We should plant some roses along the fence.",
    "I've got a terrible headache today.",
    "Let's take the long way home along the river.",
    "The printer is out of paper again.",
    "My favourite season is definitely autumn.",
    "Is there any cake left from yesterday?",
    "The neighbours are having a party tonight.",
    "I heard a strange noise in the attic.",
    "She always sings in the shower.",
    "Can you believe it's already March?",
    "The baby finally fell asleep.",
    "We need to buy a present for Tom's birthday.",
    "The football match was a draw in the end.",
    "I forgot to lock the back door.",
    "He's training for a marathon in the spring.",
    "The trains are on strike again tomorrow.",
    "That jacket really suits you.",
    "I left the keys on the kitchen table.",
    "Let's order pizza, I'm too tired to cook.",
    "The fridge is making that humming noise again.",
    "Our flight was delayed by two hours.",
    "I'll be back in about twenty minutes.",
    "Could you speak a bit louder, I can't hear you.",
    "The window cleaner comes every second Thursday.",
    "My laptop froze in the middle of the call.",
    "The strawberries are ripe, let's pick some.",
    "We saw a fox in the garden last night.",
    "He fixed the bike chain all by himself.",
    "Please take your shoes off at the door.",
    "Is it my turn to choose the film?",
    "The snow is melting really fast today.",
    "I can smell something burning in the kitchen.",
    "Did you remember to pay the electricity bill?",
]

# Requests like those made to a robot, said after the wake phrase or in the
# command window; other wordings than the test sets'.
REQUESTS = [
    "what's the time now", "tell me the date", "which day of the week is it",
    "set a timer for eight minutes", "start a timer for fifteen seconds",
    "stop my timer", "how long is left", "make it quieter", "volume to six",
    "turn the sound up a bit", "be quiet", "what's your name", "how are things",
    "tell me a story", "play some jazz", "what's the weather like",
    "good night jibo", "are you listening", "who made you", "what can I ask you",
    "dance for me", "take a picture", "remind me to buy eggs",
    "what's on my calendar", "tell me something funny",
    "turn off the lights", "what is two plus two", "sing a song",
    "how tall is the eiffel tower", "I'm home", "I'm going out now",
    "look at me", "can you hear me", "what do you think about cats",
    "could you start a timer please", "when does my timer ring",
    "switch the sound off", "is it sunny outside", "wake me up at seven",
]

_ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

SUBJECTS = ["my neighbour", "the teacher", "our cousin", "the old man", "my boss",
            "the children", "a friend of mine", "the doctor", "her uncle", "the driver",
            "everybody", "the postman", "my mother", "the new student", "his wife"]
VERBS = ["bought", "painted", "lost", "found", "cooked", "borrowed", "sold", "fixed",
         "carried", "cleaned", "washed", "forgot", "opened", "ordered", "broke"]
OBJECTS = ["a green umbrella", "the blue car", "three loaves of bread", "an old guitar",
           "the kitchen chairs", "a big box of apples", "the garden gate", "two tickets",
           "a birthday cake", "the red bicycle", "some flowers", "a new lamp",
           "the broken clock", "a bag of potatoes", "the heavy suitcase"]
WHENS = ["yesterday", "last week", "this morning", "on Sunday", "before lunch",
         "after school", "in the evening", "two days ago", "at the market",
         "in the rain", "on the way home", "during the holidays"]


def generated_sentences(rng, n):
    """Sentences made from the lists above: more words and rhythms than a
    hand-written list holds."""
    out = []
    for _ in range(n):
        s = "%s %s %s %s." % (rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(WHENS))
        out.append(s[0].upper() + s[1:])
    return out


def dictionary_words(path):
    """Plain words of a pronouncing dictionary (cmudict), for word salad:
    speech sounds in orders no sentence list holds."""
    words = []
    try:
        with open(path, encoding="latin-1") as f:
            for line in f:
                w = line.split(" ", 1)[0]
                if w.isalpha() and w.islower() and 3 <= len(w) <= 9:
                    words.append(w)
    except OSError:
        return []
    return sorted(set(words))


def word_salad(rng, words, n):
    out = []
    for _ in range(n):
        k = int(rng.integers(3, 10))
        out.append(" ".join(rng.choice(words, k)))
    return out


BASE_VOICES = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan",
               "en-gb-x-gbcwmd", "en-029", "en-us-nyc"]


def espeak_variants():
    """The variants espeak-ng offers (male1, klatt3, whisper, …), sorted."""
    out = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5:
            names.append(os.path.basename(parts[4]))
    return sorted(set(names))


def split_variants(variants):
    """Every seventh variant is held out of training, for validation and
    for choosing the threshold on voices the network never heard."""
    train = [v for i, v in enumerate(variants) if i % 7 != 3]
    held = [v for i, v in enumerate(variants) if i % 7 == 3]
    return train, held


def random_voice(rng, variants):
    base = rng.choice(BASE_VOICES)
    v = base if rng.random() < 0.2 else base + "+" + rng.choice(variants)
    return {"voice": v, "speed": int(rng.integers(110, 231)), "pitch": int(rng.integers(10, 91)),
            "gap": int(rng.choice([0, 0, 0, 0, 1, 2, 4]))}


def wide_voice(rng, variants):
    """A voice as random_voice makes them, with speed and pitch over
    espeak-ng's wider range (80-320 words a minute, pitch 0-99)."""
    v = random_voice(rng, variants)
    v["speed"] = int(rng.integers(80, 321))
    v["pitch"] = int(rng.integers(0, 100))
    return v


def synth(text, p):
    """espeak-ng speech as float32 at 16 kHz (sox resamples, -R: repeatable)."""
    cmd = ["espeak-ng", "-v", p["voice"], "-s", str(p["speed"]), "-p", str(p["pitch"]), "--stdout"]
    if p.get("gap"):
        cmd += ["-g", str(p["gap"])]
    wav = subprocess.run(cmd + [text], capture_output=True, check=True).stdout
    raw = subprocess.run(["sox", "-R", "-q", "-t", "wav", "-", "-r", str(SR), "-c", "1", "-b", "16",
                          "-e", "signed-integer", "-t", "raw", "-"], input=wav, capture_output=True, check=True).stdout
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0


def trim(x, below_db=35.0):
    """Cuts the silence around speech: 10 ms frames more than below_db under
    the loudest frame."""
    n = len(x) // 160
    if n == 0:
        return x
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1) + 1e-12
    db = 10 * np.log10(e)
    keep = np.nonzero(db > db.max() - below_db)[0]
    if len(keep) == 0:
        return x[:0]
    return x[keep[0] * 160:(keep[-1] + 1) * 160]


def synth_many(jobs, threads=4):
    """Synthesises (text, params) pairs; espeak-ng's start-up dominates, not
    its CPU, so a few run at once."""
    with ThreadPoolExecutor(threads) as ex:
        return list(ex.map(lambda j: trim(synth(j[0], j[1])), jobs))


# --- noise -----------------------------------------------------------------


def coloured_noise(rng, n, colour):
    """White, pink (1/f) or brown (1/f²) noise of unit RMS."""
    w = rng.standard_normal(n)
    if colour != "white":
        spec = np.fft.rfft(w)
        f = np.arange(len(spec), dtype=np.float64)
        f[0] = 1
        spec /= f ** (0.5 if colour == "pink" else 1.0)
        spec[0] = 0
        w = np.fft.irfft(spec, n)
    return (w / (np.sqrt((w ** 2).mean()) + 1e-12)).astype(np.float32)


def music(rng, n):
    """Music-like sound: chords of harmonic tones that change on a beat,
    sometimes with a plucked decay and a drum-like noise burst on beats."""
    out = np.zeros(n, dtype=np.float64)
    t = np.arange(n) / SR
    beat = rng.uniform(0.25, 0.7)
    root = rng.uniform(110, 330)
    pos = 0
    pluck = rng.random() < 0.5
    while pos < n:
        seg = min(n - pos, int(beat * SR * rng.choice([1, 2, 2, 4])))
        tt = t[:seg]
        chord = root * 2 ** (rng.choice([0, 2, 4, 5, 7, 9], 3) / 12.0) * rng.choice([0.5, 1, 2])
        env = np.exp(-tt * rng.uniform(2, 6)) if pluck else np.minimum(1, tt * 40) * np.minimum(1, (seg / SR - tt) * 40)
        for f0 in chord:
            for h in range(1, 6):
                if f0 * h < SR / 2:
                    out[pos:pos + seg] += env * np.sin(2 * np.pi * f0 * h * tt + rng.uniform(0, 6.3)) / h ** rng.uniform(1, 2)
        if rng.random() < 0.5:
            k = min(seg, int(0.08 * SR))
            out[pos:pos + k] += rng.standard_normal(k) * np.exp(-np.arange(k) / (0.015 * SR)) * 2
        pos += seg
    return (out / (np.sqrt((out ** 2).mean()) + 1e-12)).astype(np.float32)


def babble(rng, pool, n, talkers):
    """Several talkers at once: clips from pool, each at its own level,
    looped end to end to fill n samples."""
    out = np.zeros(n, dtype=np.float32)
    for _ in range(talkers):
        track = np.zeros(n, dtype=np.float32)
        pos = -int(rng.integers(0, SR))
        while pos < n:
            c = pool[int(rng.integers(len(pool)))]
            a, b = max(pos, 0), min(pos + len(c), n)
            if b > a:
                track[a:b] += c[a - pos:b - pos]
            pos += len(c) + int(rng.integers(0, SR // 4))
        rms = np.sqrt((track ** 2).mean()) + 1e-9
        out += track / rms * rng.uniform(0.5, 1.0)
    return out / (np.sqrt((out ** 2).mean()) + 1e-12)


def room(rng, rt60, direct):
    """A synthetic room impulse response: the direct sound, then a decaying
    noise tail (reverberation time rt60 s); direct sets their balance."""
    n = int(rt60 * SR)
    t = np.arange(n) / SR
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    tail[: int(0.003 * SR)] = 0
    tail /= np.sqrt((tail ** 2).sum()) + 1e-12
    h = tail
    h[0] += direct
    return h / np.abs(h).max()


def convolve(x, h):
    n = len(x) + len(h) - 1
    m = 1 << (n - 1).bit_length()
    y = np.fft.irfft(np.fft.rfft(x, m) * np.fft.rfft(h, m), m)[: len(x)]
    return y.astype(np.float32)


def equalise(rng, x, lowpass=None):
    """A random smooth tilt of the spectrum (±6 dB), and a low-pass: other
    microphones, rooms and voices' spectral shapes."""
    m = 1 << (len(x) - 1).bit_length()
    spec = np.fft.rfft(x, m)
    f = np.linspace(0, 1, len(spec))
    db = rng.uniform(-6, 6) * (f - 0.5) + rng.uniform(-3, 3) * np.sin(np.pi * f * rng.uniform(1, 4) + rng.uniform(0, 6.3))
    g = 10 ** (db / 20)
    if lowpass is not None:
        g = g / np.sqrt(1 + (f * (SR / 2) / lowpass) ** 8)
    return np.fft.irfft(spec * g, m)[: len(x)].astype(np.float32)


def speed(x, factor):
    """Plays x faster (factor > 1) or slower: pitch and formants move with
    it, as between people of other sizes."""
    n = int(len(x) / factor)
    return np.interp(np.arange(n) * factor, np.arange(len(x)), x).astype(np.float32)


def rms_active(x):
    """RMS over the loud part of a clip (10 ms frames within 30 dB of the
    loudest), the speech level an SNR is measured against."""
    n = len(x) // 160
    if n == 0:
        return float(np.sqrt((x ** 2).mean() + 1e-12))
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    loud = e[e > e.max() * 1e-3]
    return float(np.sqrt(loud.mean() + 1e-12))


def far_room(rng, rt60=None):
    """A room heard from far away, made unlike room(): no direct sound or
    only a little, a pre-delay, a few early reflections, then a diffuse
    tail that builds up over some milliseconds and decays with a
    reverberation time of 0.4 to 6 s (log-uniform), shorter for the
    higher of four bands, as walls and air absorb highs first."""
    if rt60 is None:
        rt60 = float(np.exp(rng.uniform(np.log(0.4), np.log(6.0))))
    n = int(min(rt60, 3.5) * SR)
    t = np.arange(n) / SR
    pre = int(rng.uniform(0.005, 0.05) * SR)
    white = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / SR)
    edges = [0, rng.uniform(300, 700), rng.uniform(1200, 2200), rng.uniform(2800, 4500), SR]
    damp = rng.uniform(0.25, 0.85)  # how much shorter the top band's decay is
    tail = np.zeros(n)
    for b in range(4):
        band = np.fft.irfft(np.where((f >= edges[b]) & (f < edges[b + 1]), white, 0), n)
        tail += band * np.exp(-6.9 * t / (rt60 * damp ** (b / 3)))
    tail *= 1 - np.exp(-t / rng.uniform(0.005, 0.03))  # the diffuse build-up
    tail = np.concatenate([np.zeros(pre), tail])[:n]
    tail /= np.sqrt((tail ** 2).sum()) + 1e-12
    h = tail
    for _ in range(int(rng.integers(3, 12))):  # early reflections
        at = pre + int(rng.uniform(0.0, 0.06) * SR)
        if at < n:
            h[at] += rng.choice([-1, 1]) * rng.uniform(0.05, 0.4) * np.exp(-(at - pre) / (0.03 * SR))
    if rng.random() < 0.6:  # a little direct sound, 5 to 25 dB under the rest
        h[0] += np.sqrt((h ** 2).sum()) * 10 ** (-rng.uniform(5, 25) / 20)
    return h / np.abs(h).max()


def far_field(rng, x, noise_pool, level_db=(-45, -12), echoes=False):
    """x said far from the microphone: in a far_room, the highs lost on the
    way (low-pass at 2.5-6 kHz, a random tilt), quiet (peak level_db, dBFS),
    over faint room noise, other talkers or nothing. echoes (the
    fine-tuning's longer, other rooms) puts it in an echo_room instead for
    60 % of the draws, with tails of up to 6 s, and lets the noise and the
    talkers come 3 and 2 dB nearer."""
    if echoes:
        h = echo_room(rng) if rng.random() < 0.6 else far_room(rng)
        noise_db, babble_db = (12, 40), (6, 25)
    else:
        h = far_room(rng)
        noise_db, babble_db = (15, 40), (8, 25)
    y = convolve(x, h)
    y = equalise(rng, y, lowpass=rng.uniform(2500, 6000))
    level = rms_active(y) if np.abs(y).max() > 0 else 0.05
    r = rng.random()
    if r < 0.4:
        y = y + coloured_noise(rng, len(y), rng.choice(["pink", "brown"])) * level / 10 ** (rng.uniform(*noise_db) / 20)
    elif r < 0.65:
        y = y + babble(rng, noise_pool, len(y), int(rng.integers(2, 5))) * level / 10 ** (rng.uniform(*babble_db) / 20)
    y = y * (10 ** (rng.uniform(*level_db) / 20) / (np.abs(y).max() + 1e-9))
    return y.astype(np.float32)


# --- more rooms and voices (finetune.py) -------------------------------------


def echo_room(rng, rt60=None):
    """A room made another way than room() and far_room(): a handful of
    recirculating delays (parallel feedback combs of 20-60 ms, their gains
    set for a reverberation time of 0.5 to 6 s, log-uniform) smeared by a
    few all-pass diffusers, the highs dying sooner in two to four bands,
    after a pre-delay; the direct sound 0 to 20 dB under the tail, or
    none. Its tail is as long as the room rings (up to 6 s), not cut."""
    if rt60 is None:
        rt60 = float(np.exp(rng.uniform(np.log(0.5), np.log(6.0))))
    n = int(rt60 * SR)
    h = np.zeros(n)
    for _ in range(int(rng.integers(4, 9))):  # the combs' echo trains
        d = int(rng.uniform(0.02, 0.06) * SR)
        g = 10 ** (-3 * d / (rt60 * SR))
        k = np.arange(n // d + 1)
        h[(k * d)[k * d < n]] += rng.uniform(0.6, 1.0) * g ** k[k * d < n]
    for _ in range(int(rng.integers(2, 5))):  # all-pass diffusers
        d = int(rng.uniform(0.001, 0.012) * SR)
        g = rng.uniform(0.5, 0.75)
        m = int(np.ceil(np.log(1e-4) / np.log(g)))
        ap = np.zeros(d * m + 1)
        ap[0] = -g
        ap[d::d] = (1 - g * g) * g ** np.arange(m)
        h = convolve(h, ap).astype(np.float64)
    t = np.arange(n) / SR
    f = np.fft.rfftfreq(n, 1 / SR)
    spec = np.fft.rfft(h)
    edges = np.concatenate([[0], np.sort(rng.uniform(400, 5000, int(rng.integers(1, 4)))), [SR]])
    damp = rng.uniform(0.3, 0.9)
    tail = np.zeros(n)
    for b in range(len(edges) - 1):
        band = np.fft.irfft(np.where((f >= edges[b]) & (f < edges[b + 1]), spec, 0), n)
        extra = 1 / (rt60 * damp ** (b / max(1, len(edges) - 2))) - 1 / rt60
        tail += band * np.exp(-6.9 * t * extra)
    pre = int(rng.uniform(0.0, 0.04) * SR)
    tail = np.concatenate([np.zeros(pre), tail])[:n]
    tail /= np.sqrt((tail ** 2).sum()) + 1e-12
    if rng.random() < 0.7:
        tail[0] += np.sqrt((tail ** 2).sum()) * 10 ** (-rng.uniform(0, 20) / 20)
    return (tail / np.abs(tail).max()).astype(np.float32)


def warp(x, alpha, nfft=512, hop=128):
    """x with its spectrum stretched by alpha along frequency, frame by
    frame (alpha > 1 raises pitch and formants, as a smaller vocal tract
    and voice do), its timing kept: the short-time spectrum resampled at
    f/alpha and resynthesised by overlap-add."""
    if len(x) < nfft:
        return x
    win = np.hanning(nfft + 1)[:nfft]
    n = 1 + (len(x) - nfft) // hop
    idx = np.arange(nfft)[None, :] + hop * np.arange(n)[:, None]
    spec = np.fft.rfft(x[idx] * win, nfft)
    bins = np.arange(spec.shape[1]) / alpha
    lo = np.clip(np.floor(bins).astype(int), 0, spec.shape[1] - 1)
    hi = np.clip(lo + 1, 0, spec.shape[1] - 1)
    fr = bins - np.floor(bins)
    mag = np.abs(spec)
    m = mag[:, lo] * (1 - fr) + mag[:, hi] * fr
    m[:, bins > spec.shape[1] - 1] = 0
    # Phase vocoder: each output bin's phase advances at alpha times its
    # source's measured frequency, so moved harmonics stay coherent.
    expect = 2 * np.pi * hop * np.arange(spec.shape[1]) / nfft
    dphi = np.diff(np.angle(spec), axis=0, prepend=np.zeros((1, spec.shape[1]))) - expect
    inst = expect + (dphi + np.pi) % (2 * np.pi) - np.pi
    ph = np.cumsum(alpha * inst[:, lo], axis=0)
    frames = np.fft.irfft(m * np.exp(1j * ph), nfft) * win
    y = np.zeros(len(x))
    norm = np.zeros(len(x))
    for k in range(n):
        y[k * hop:k * hop + nfft] += frames[k]
        norm[k * hop:k * hop + nfft] += win ** 2
    y /= np.maximum(norm, 1e-3)
    return y.astype(np.float32)


def microphone(rng, x):
    """x through another microphone and loudspeaker: a high-pass at 80-400
    Hz, a resonance or dip of ±8 dB somewhere from 500 Hz to 5 kHz, a
    smooth tilt, and a low-pass at 3.5-8 kHz in some."""
    m = 1 << (len(x) - 1).bit_length()
    spec = np.fft.rfft(x, m)
    f = np.fft.rfftfreq(m, 1 / SR)
    hp = rng.uniform(80, 400)
    g = 1 / np.sqrt(1 + (hp / np.maximum(f, 1)) ** 4)
    fc, q = np.exp(rng.uniform(np.log(500), np.log(5000))), rng.uniform(1, 5)
    g = g * 10 ** (rng.uniform(-8, 8) / 20 / (1 + (q * (f / fc - fc / np.maximum(f, 1))) ** 2))
    g = g * 10 ** (rng.uniform(-4, 4) * (f / (SR / 2) - 0.5) / 20)
    if rng.random() < 0.5:
        g = g / np.sqrt(1 + (f / rng.uniform(3500, 8000)) ** 8)
    return np.fft.irfft(spec * g, m)[: len(x)].astype(np.float32)


def other_voice(rng, x):
    """x as said by someone espeak-ng does not model: its spectrum
    stretched (0.84-1.2, a vocal tract and voice of another size) with
    its tempo kept, or its tempo changed (0.8-1.25) with the voice kept,
    or both; then another microphone in half of them. Returns the audio
    and how much faster it is said (what moves a phrase's end)."""
    r = rng.random()
    alpha = float(np.exp(rng.uniform(np.log(0.84), np.log(1.2))))
    tempo = float(rng.uniform(0.8, 1.25))
    y = x
    if r < 0.4:
        y = warp(y, alpha)
        tempo = 1.0
    elif r < 0.7:  # resampling moves the voice with the tempo; the warp moves it back
        y = warp(speed(y, tempo), 1 / tempo)
    else:
        y = warp(speed(y, tempo), alpha / tempo)
    if rng.random() < 0.5:
        y = microphone(rng, y)
    peak = np.abs(y).max()
    if peak > 0:
        y = y * (np.abs(x).max() / peak)
    return y.astype(np.float32), tempo

//go:build sphinx

// The acoustic scoring of pocketsphinx's phonetically-tied mixture models
// ("ptm", the en-us model), with the Gaussian densities evaluated four
// at a time in vector registers: SSE2 on amd64 (eight at a time with AVX
// where the CPU has it), NEON on arm64, and NEON on armv7 where the CPU
// has it. The scores are the library's, bit for
// bit: each density's distance is the same float operations in the same
// order (the dimensions one after the other, no reassociation), as the
// library's build for that architecture does them; Debian's arm64
// library fuses the multiply and subtract of each dimension (fmsub), its
// amd64 and armhf ones do not, and so neither do we there.
//
// The hook goes into the model's function table (ps_mgau_t.vt), one
// table per model, so that the library's own functions stay where they
// are. It reads the internal layouts of pocketsphinx 5prealpha (Debian
// 12's 0.8+5prealpha), which no installed header describes: the build
// scripts check that version (scripts/pocketsphinx-version.sh), the
// install checks every pointer it follows against what the public API
// returns, and a frame in every JG_CHECK_EVERY is scored both ways and
// compared: a difference turns the hook off for the process and is
// logged (gauss.go).

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <pocketsphinx.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/bitvec.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/feat.h>

#include "gauss.h"

// --- pocketsphinx 5prealpha's internal layouts ---------------------------

typedef struct jg_mgau jg_mgau;

typedef int (*jg_eval_fn)(jg_mgau *, int16 *, uint8 *, int32, mfcc_t **, int32, int32);

// ps_mgaufuncs_t (acmod.h).
typedef struct {
	char const *name;
	jg_eval_fn frame_eval;
	int (*transform)(jg_mgau *, void *);
	void (*free)(jg_mgau *);
} jg_funcs;

// ps_mgau_t (acmod.h): the head of every model.
struct jg_mgau {
	jg_funcs *vt;
	int frame_idx;
};

// The head of ps_decoder_t (pocketsphinx_internal.h).
typedef struct {
	cmd_ln_t *config;
	int refcount;
	void *acmod;
} jg_decoder;

// The head of acmod_t (acmod.h), up to the model.
typedef struct {
	cmd_ln_t *config;
	logmath_t *lmath;
	void *strings;
	fe_t *fe;
	feat_t *fcb;
	void *mdef;
	void *tmat;
	jg_mgau *mgau;
} jg_acmod;

// ptm_topn_t, ptm_fast_eval_t (ptm_mgau.h).
typedef struct {
	int32 cw;
	int32 score;
} jg_topn;

typedef struct {
	jg_topn ***topn;
	bitvec_t *mgau_active;
} jg_fast;

// gauden_t (ms_gauden.h).
typedef struct {
	mfcc_t ****mean;
	mfcc_t ****var;
	mfcc_t ***det;
	logmath_t *lmath;
	int32 n_mgau;
	int32 n_feat;
	int32 n_density;
	int32 *featlen;
} jg_gauden;

// ptm_mgau_t (ptm_mgau.h).
typedef struct {
	jg_mgau base;
	cmd_ln_t *config;
	jg_gauden *g;
	int32 n_sen;
	uint8 *sen2cb;
	uint8 ***mixw;
	void *sendump_mmap;
	uint8 *mixw_cb;
	int16 max_topn;
	int16 ds_ratio;
	jg_fast *hist;
	jg_fast *f;
	int n_fast_hist;
	logmath_t *lmath_8b;
	logmath_t *lmath;
} jg_ptm;

// The library's constants (hmm.h, tied_mgau_common.h).
#define JG_SENSCR_SHIFT 10
#define JG_WORST_SCORE ((int)0xE0000000)
#define JG_MAX_NEG_ASCR 96

extern int ptm_mgau_frame_eval(jg_mgau *, int16 *, uint8 *, int32, mfcc_t **, int32, int32);

// --- the vector operations -----------------------------------------------

// JG_STEP(d, z, m, v) is one dimension of four densities' distances:
// d - (z - m)^2 * v, rounded as the library's build rounds it.
#if defined(__x86_64__)
#include <emmintrin.h>
#define JG_HAVE_VEC 1
typedef __m128 jg_v;
#define JG_LOAD(p) _mm_load_ps(p)
#define JG_LOADU(p) _mm_loadu_ps(p)
#define JG_DUP(x) _mm_set1_ps(x)
#define JG_STORE(p, v) _mm_storeu_ps(p, v)
#define JG_TARGET
static inline jg_v jg_step(jg_v d, jg_v z, jg_v m, jg_v v) {
	jg_v diff = _mm_sub_ps(z, m);
	return _mm_sub_ps(d, _mm_mul_ps(_mm_mul_ps(diff, diff), v));
}
// jg_any_ge: some lane of d is >= t (false for NaN lanes).
static inline int jg_any_ge(jg_v d, jg_v t) { return _mm_movemask_ps(_mm_cmpge_ps(d, t)) != 0; }
// jg_takes: a bit for each lane whose pre >= t and not fin < t.
static inline int jg_takes(jg_v pre, jg_v fin, jg_v t) {
	return _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(pre, t), _mm_cmpnlt_ps(fin, t)));
}
// JG_T4: four vectors transposed in place.
#define JG_T4(a, b, c, d) _MM_TRANSPOSE4_PS(a, b, c, d)
// AVX: eight densities to a vector (jg_eval_cb8), where the CPU and the
// OS have it. Without FMA in the target, nothing is fused: each lane is
// the SSE2 code's, and the library's, float operations.
#include <immintrin.h>
#define JG_AVX 1
#define JG_AVX_TARGET __attribute__((target("avx")))
static int jg_avx_ok(void) {
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx");
}
#elif defined(__aarch64__)
#include <arm_neon.h>
#define JG_HAVE_VEC 1
typedef float32x4_t jg_v;
#define JG_LOAD(p) vld1q_f32(p)
#define JG_LOADU(p) vld1q_f32(p)
#define JG_DUP(x) vdupq_n_f32(x)
#define JG_STORE(p, v) vst1q_f32(p, v)
#define JG_TARGET
static inline jg_v jg_step(jg_v d, jg_v z, jg_v m, jg_v v) {
	jg_v diff = vsubq_f32(z, m);
	// Fused, as the library's fmsub: d - (diff*diff)*v rounded once.
	return vfmsq_f32(d, vmulq_f32(diff, diff), v);
}
static inline int jg_any_ge(jg_v d, jg_v t) { return vmaxvq_u32(vcgeq_f32(d, t)) != 0; }
static inline int jg_takes(jg_v pre, jg_v fin, jg_v t) {
	static const uint32_t bits[4] = {1, 2, 4, 8};
	uint32x4_t m = vbicq_u32(vcgeq_f32(pre, t), vcltq_f32(fin, t));
	return (int)vaddvq_u32(vandq_u32(m, vld1q_u32(bits)));
}
// JG_T4: four vectors transposed in place.
#define JG_T4(a, b, c, d)                                                                       \
	do {                                                                                    \
		float32x4x2_t jg_p = vtrnq_f32(a, b), jg_q = vtrnq_f32(c, d);                   \
		a = vcombine_f32(vget_low_f32(jg_p.val[0]), vget_low_f32(jg_q.val[0]));         \
		b = vcombine_f32(vget_low_f32(jg_p.val[1]), vget_low_f32(jg_q.val[1]));         \
		c = vcombine_f32(vget_high_f32(jg_p.val[0]), vget_high_f32(jg_q.val[0]));       \
		d = vcombine_f32(vget_high_f32(jg_p.val[1]), vget_high_f32(jg_q.val[1]));       \
	} while (0)
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
// Debian's armhf baseline has no NEON: these are compiled for it and
// run only where the kernel reports it (jg_cpu_ok). NEON flushes
// subnormal numbers to zero where the library's VFP code does not;
// jg_model_ok admits a model only where that cannot change a score.
#pragma GCC push_options
#pragma GCC target("fpu=neon")
#include <arm_neon.h>
#define JG_HAVE_VEC 1
#define JG_ARMV7 1
typedef float32x4_t jg_v;
#define JG_LOAD(p) vld1q_f32(p)
#define JG_LOADU(p) vld1q_f32(p)
#define JG_DUP(x) vdupq_n_f32(x)
#define JG_STORE(p, v) vst1q_f32(p, v)
#define JG_TARGET __attribute__((target("fpu=neon")))
static inline JG_TARGET jg_v jg_step(jg_v d, jg_v z, jg_v m, jg_v v) {
	jg_v diff = vsubq_f32(z, m);
	// Not fused (VFPv3 has no fused multiply-add, nor the library's vmls).
	return vsubq_f32(d, vmulq_f32(vmulq_f32(diff, diff), v));
}
static inline JG_TARGET int jg_any_ge(jg_v d, jg_v t) {
	uint32x4_t c = vcgeq_f32(d, t);
	uint32x2_t o = vorr_u32(vget_low_u32(c), vget_high_u32(c));
	return (vget_lane_u32(o, 0) | vget_lane_u32(o, 1)) != 0;
}
static inline JG_TARGET int jg_takes(jg_v pre, jg_v fin, jg_v t) {
	uint32x4_t m = vbicq_u32(vcgeq_f32(pre, t), vcltq_f32(fin, t));
	return (vgetq_lane_u32(m, 0) & 1) | (vgetq_lane_u32(m, 1) & 2) | (vgetq_lane_u32(m, 2) & 4) | (vgetq_lane_u32(m, 3) & 8);
}
// JG_T4: four vectors transposed in place.
#define JG_T4(a, b, c, d)                                                                       \
	do {                                                                                    \
		float32x4x2_t jg_p = vtrnq_f32(a, b), jg_q = vtrnq_f32(c, d);                   \
		a = vcombine_f32(vget_low_f32(jg_p.val[0]), vget_low_f32(jg_q.val[0]));         \
		b = vcombine_f32(vget_low_f32(jg_p.val[1]), vget_low_f32(jg_q.val[1]));         \
		c = vcombine_f32(vget_high_f32(jg_p.val[0]), vget_high_f32(jg_q.val[0]));       \
		d = vcombine_f32(vget_high_f32(jg_p.val[1]), vget_high_f32(jg_q.val[1]));       \
	} while (0)
#pragma GCC pop_options
#endif

#ifdef JG_HAVE_VEC

#ifdef JG_ARMV7
#include <sys/auxv.h>
#ifndef HWCAP_NEON
#define HWCAP_NEON (1 << 12)
#endif
static int jg_cpu_ok(void) { return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0; }
#else
static int jg_cpu_ok(void) { return 1; }
#endif

// --- the hook --------------------------------------------------------------

// JG_MAX_LEN: the longest stream the vector code takes.
#define JG_MAX_LEN 64

// JG_CHECK_EVERY: one new frame in this many is scored both ways.
#define JG_CHECK_EVERY 256

// jg_hook is one model's function table and what the vector code needs:
// the means and variances of every codebook and stream rearranged width
// densities to a vector (tmean[cb*n_feat+f][(cw/w)*len*w + j*w + cw%w]:
// four, or eight where the CPU has AVX: jg_eval_cb8), and room to score a
// frame the library's way beside ours.
typedef struct {
	jg_funcs vt; // first: the model's vt points here
	jg_funcs *lib;
	jg_ptm *s;
	int width;
	float **tmean, **tvar;
	// scalar[cb*n_feat+f][cw/4] (armv7): a density of these four starts
	// at det > -1, and the four are scored by scalar code.
	uint8_t **scalar;
	int16 *scratch;
	jg_topn *snap_topn, *ours_topn;
	bitvec_t *snap_active, *ours_active;
	unsigned frames;
} jg_hook;

static int jg_off;         // a check found a difference: the library scores
static int jg_forced_off;  // the library scores (tests)
static int jg_corrupt;     // a check sees our scores one off (tests)
static int jg_check_all;   // every new frame is checked (tests)
static int jg_narrow;      // decoders made now score four at a time (tests)
static long jg_checked;    // frames checked, the process over
static long jg_vec_frames; // frames scored by the vector code

static jg_hook *jg_hook_of(jg_mgau *m) { return (jg_hook *)m->vt; }

static float *jg_alloc_floats(size_t n) {
	void *p = NULL;
	if (posix_memalign(&p, 32, n * sizeof(float)) != 0)
		return NULL;
	return p;
}

static void jg_free_tables(jg_hook *h) {
	for (int i = 0; i < h->s->g->n_mgau * h->s->g->n_feat; i++) {
		if (h->tmean != NULL)
			free(h->tmean[i]);
		if (h->tvar != NULL)
			free(h->tvar[i]);
		if (h->scalar != NULL)
			free(h->scalar[i]);
	}
	free(h->tmean);
	free(h->tvar);
	free(h->scalar);
	h->tmean = h->tvar = NULL;
	h->scalar = NULL;
}

// jg_model_ok: the vector code's assumptions about the model's numbers.
// Every variance is >= 0 (not NaN), so that a density's distance only
// falls as the dimensions go by, which is what lets it end a density's
// evaluation where the library ends it, and decide alike. On armv7, also
// every variance 0 or normal and below 2^60: with that, NEON's flush of
// subnormal numbers to zero can only drop a term below 2^-66 from a
// distance, or a difference whose square is zero either way, which
// cannot change a distance of magnitude >= 1, as every distance starting
// at det <= -1 stays (it only falls). Densities with det > -1 (a few in
// the en-us model) are scored by scalar code there (jg_build_tables).
static int jg_model_ok(jg_ptm *s) {
	jg_gauden *g = s->g;
	for (int cb = 0; cb < g->n_mgau; cb++) {
		for (int f = 0; f < g->n_feat; f++) {
			int len = g->featlen[f];
			float const *v = g->var[cb][f][0];
			for (int i = 0; i < g->n_density * len; i++) {
				if (!(v[i] >= 0))
					return 0;
#ifdef JG_ARMV7
				if (v[i] != 0 && !(v[i] >= FLT_MIN && v[i] < 0x1p60f))
					return 0;
#endif
			}
		}
	}
	return 1;
}

static int jg_build_tables(jg_hook *h) {
	jg_gauden *g = h->s->g;
	int n = g->n_mgau * g->n_feat;
	h->tmean = calloc(n, sizeof(float *));
	h->tvar = calloc(n, sizeof(float *));
	h->scalar = calloc(n, sizeof(uint8_t *));
	if (h->tmean == NULL || h->tvar == NULL || h->scalar == NULL)
		return -1;
	for (int cb = 0; cb < g->n_mgau; cb++) {
		for (int f = 0; f < g->n_feat; f++) {
			int len = g->featlen[f], k = cb * g->n_feat + f;
			float *tm = jg_alloc_floats((size_t)g->n_density * len);
			float *tv = jg_alloc_floats((size_t)g->n_density * len);
			h->tmean[k] = tm;
			h->tvar[k] = tv;
			if (tm == NULL || tv == NULL)
				return -1;
			uint8_t *sc = calloc(g->n_density / 4, 1);
			h->scalar[k] = sc;
			if (sc == NULL)
				return -1;
#ifdef JG_ARMV7
			for (int cw = 0; cw < g->n_density; cw++)
				if (!(g->det[cb][f][cw] <= -1.0f))
					sc[cw / 4] = 1;
#endif
			float const *m = g->mean[cb][f][0], *v = g->var[cb][f][0];
			for (int cw = 0; cw < g->n_density; cw++) {
				for (int j = 0; j < len; j++) {
					int w = h->width;
					size_t t = (size_t)(cw / w) * len * w + (size_t)j * w + cw % w;
					tm[t] = m[cw * len + j];
					tv[t] = v[cw * len + j];
				}
			}
		}
	}
	return 0;
}

// jg_int is the library's conversion of a distance to a score (with
// Debian's avoid-underflow patch).
static inline int32 jg_int(float d) {
	if (d < (float)INT_MIN)
		return INT_MIN;
	return (int32)d;
}

// jg_scalar_dist is one density's distance as the library computes it
// (armv7's VFP code, which keeps subnormal numbers), and in *pre the
// distance before dimension last.
static float jg_scalar_dist(float d, float const *z, float const *m, float const *v, int len, int last, float *pre) {
	for (int j = 0; j < len; j++) {
		if (j == last)
			*pre = d;
		float diff = z[j] - m[j];
		float sq = diff * diff;
		d = d - sq * v[j];
	}
	return d;
}

// jg_eval_topn: the previous frame's top densities of one codebook and
// stream, scored afresh and sorted as the library's insertion does.
static JG_TARGET __attribute__((noinline)) void jg_eval_topn(jg_ptm *s, int cb, int f, float const *z) {
	jg_topn *topn = s->f->topn[cb][f];
	int len = s->g->featlen[f], n = s->max_topn;
	float const *mean = s->g->mean[cb][f][0], *var = s->g->var[cb][f][0];
	float const *det = s->g->det[cb][f];
	float dist[4];
	for (int i0 = 0; i0 < n; i0 += 4) {
		// Up to four of the top-N, read before any is sorted in: the
		// library's insertion only moves entries at or before the one
		// it scores.
		float const *mp[4], *vp[4];
		float d0[4];
		int k = n - i0 < 4 ? n - i0 : 4;
		for (int l = 0; l < 4; l++) {
			int cw = topn[i0 + (l < k ? l : 0)].cw;
			mp[l] = mean + cw * len;
			vp[l] = var + cw * len;
			d0[l] = det[cw];
		}
#ifdef JG_ARMV7
		if (!(d0[0] <= -1.0f && d0[1] <= -1.0f && d0[2] <= -1.0f && d0[3] <= -1.0f)) {
			float pre;
			for (int l = 0; l < 4; l++)
				dist[l] = jg_scalar_dist(d0[l], z, mp[l], vp[l], len, -1, &pre);
		} else
#endif
		{
			jg_v d = JG_LOADU(d0);
			int j = 0;
			// Four dimensions of the four densities at a time, their
			// rows turned into one vector for each dimension.
			for (; j + 4 <= len; j += 4) {
				jg_v m0 = JG_LOADU(mp[0] + j), m1 = JG_LOADU(mp[1] + j), m2 = JG_LOADU(mp[2] + j), m3 = JG_LOADU(mp[3] + j);
				jg_v v0 = JG_LOADU(vp[0] + j), v1 = JG_LOADU(vp[1] + j), v2 = JG_LOADU(vp[2] + j), v3 = JG_LOADU(vp[3] + j);
				JG_T4(m0, m1, m2, m3);
				JG_T4(v0, v1, v2, v3);
				d = jg_step(d, JG_DUP(z[j]), m0, v0);
				d = jg_step(d, JG_DUP(z[j + 1]), m1, v1);
				d = jg_step(d, JG_DUP(z[j + 2]), m2, v2);
				d = jg_step(d, JG_DUP(z[j + 3]), m3, v3);
			}
			for (; j < len; j++) {
				float mz[4] = {mp[0][j], mp[1][j], mp[2][j], mp[3][j]};
				float vz[4] = {vp[0][j], vp[1][j], vp[2][j], vp[3][j]};
				d = jg_step(d, JG_DUP(z[j]), JG_LOADU(mz), JG_LOADU(vz));
			}
			JG_STORE(dist, d);
		}
		for (int l = 0; l < k; l++) {
			int i = i0 + l;
			int32 sc = jg_int(dist[l]);
			topn[i].score = sc;
			if (i == 0)
				continue;
			jg_topn t = topn[i];
			int j;
			for (j = i - 1; j >= 0 && sc > topn[j].score; j--)
				topn[j + 1] = topn[j];
			topn[j + 1] = t;
		}
	}
}

// jg_eval_cb: every density of one codebook and stream against the top-N,
// four at a time. The library ends a density's sum at a check before a
// dimension (each of the first len%4, then every fourth) once it is below
// the worst of the top-N, and skips it; it takes it if it reaches the end
// not below it. Its distance only falls (variances >= 0) and NaN stays
// NaN, so a density is skipped exactly when its distance at the last
// check is not >= the threshold, or its final one is below it: what is
// tested below with each density's own threshold (the worst score as it
// comes to it). The vector loop stops early only when all four are below
// the threshold at the block's start, which can only rise.
static JG_TARGET void jg_insert(jg_topn *best, jg_topn *worst, int ntop, int cw, float pre, float fin) {
	float t = (float)worst->score;
	if (!(pre >= t) || fin < t)
		return;
	for (int i = 0; i < ntop; i++)
		if (best[i].cw == cw)
			return;
	int32 sc = jg_int(fin);
	jg_topn *cur;
	for (cur = worst - 1; cur >= best && sc >= cur->score; --cur)
		cur[1] = cur[0];
	++cur;
	cur->cw = cw;
	cur->score = sc;
}

static JG_TARGET __attribute__((noinline)) void jg_eval_cb(jg_hook *h, int cb, int f, float const *z) {
	jg_ptm *s = h->s;
	jg_topn *best = s->f->topn[cb][f], *worst = best + (s->max_topn - 1);
	int len = s->g->featlen[f], n = s->g->n_density, ntop = s->max_topn;
	int rem = len % 4, last = len >= 4 ? len - 4 : len - 1;
	float const *det = s->g->det[cb][f];
	float const *tm = h->tmean[cb * s->g->n_feat + f], *tv = h->tvar[cb * s->g->n_feat + f];
	jg_v zv[JG_MAX_LEN];
	for (int j = 0; j < len; j++)
		zv[j] = JG_DUP(z[j]);
	float pre[4], fin[4];
	uint8_t const *scalar = h->scalar[cb * s->g->n_feat + f];
	for (int base = 0; base < n; base += 4, tm += 4 * len, tv += 4 * len) {
		if (scalar[base / 4]) {
			float const *m = s->g->mean[cb][f][0], *v = s->g->var[cb][f][0];
			for (int l = 0; l < 4; l++) {
				int cw = base + l;
				fin[l] = jg_scalar_dist(det[cw], z, m + cw * len, v + cw * len, len, last, &pre[l]);
				jg_insert(best, worst, ntop, cw, pre[l], fin[l]);
			}
			continue;
		}
		jg_v thresh = JG_DUP((float)worst->score);
		jg_v d = JG_LOADU(det + base), dpre = d;
		int j;
		for (j = 0; j < rem; j++) {
			if (!jg_any_ge(d, thresh))
				goto next;
			if (j == last)
				dpre = d;
			d = jg_step(d, zv[j], JG_LOAD(tm + 4 * j), JG_LOAD(tv + 4 * j));
		}
		for (; j < len; j += 4) {
			if (!jg_any_ge(d, thresh))
				goto next;
			dpre = d;
			d = jg_step(d, zv[j], JG_LOAD(tm + 4 * j), JG_LOAD(tv + 4 * j));
			d = jg_step(d, zv[j + 1], JG_LOAD(tm + 4 * j + 4), JG_LOAD(tv + 4 * j + 4));
			d = jg_step(d, zv[j + 2], JG_LOAD(tm + 4 * j + 8), JG_LOAD(tv + 4 * j + 8));
			d = jg_step(d, zv[j + 3], JG_LOAD(tm + 4 * j + 12), JG_LOAD(tv + 4 * j + 12));
		}
		// Lanes that fail against the threshold the four started with
		// fail against any later one (it only rises).
		int takes = jg_takes(dpre, d, thresh);
		if (takes == 0)
			continue;
		JG_STORE(pre, dpre);
		JG_STORE(fin, d);
		for (int l = 0; l < 4; l++)
			if (takes & (1 << l))
				jg_insert(best, worst, ntop, base + l, pre[l], fin[l]);
	next:;
	}
}

#ifdef JG_AVX
// jg_eval_cb8 is jg_eval_cb eight densities at a time (tables of width 8).
static JG_AVX_TARGET __attribute__((noinline)) void jg_eval_cb8(jg_hook *h, int cb, int f, float const *z) {
	jg_ptm *s = h->s;
	jg_topn *best = s->f->topn[cb][f], *worst = best + (s->max_topn - 1);
	int len = s->g->featlen[f], n = s->g->n_density, ntop = s->max_topn;
	int rem = len % 4, last = len >= 4 ? len - 4 : len - 1;
	float const *det = s->g->det[cb][f];
	float const *tm = h->tmean[cb * s->g->n_feat + f], *tv = h->tvar[cb * s->g->n_feat + f];
	__m256 zv[JG_MAX_LEN];
	for (int j = 0; j < len; j++)
		zv[j] = _mm256_set1_ps(z[j]);
	float pre[8], fin[8];
#define JG_STEP8(d, j)                                                                          \
	do {                                                                                    \
		__m256 diff = _mm256_sub_ps(zv[j], _mm256_load_ps(tm + 8 * (j)));               \
		d = _mm256_sub_ps(d, _mm256_mul_ps(_mm256_mul_ps(diff, diff), _mm256_load_ps(tv + 8 * (j)))); \
	} while (0)
#define JG_ANY_GE8(d, t) (_mm256_movemask_ps(_mm256_cmp_ps(d, t, _CMP_GE_OS)) != 0)
	for (int base = 0; base < n; base += 8, tm += 8 * len, tv += 8 * len) {
		__m256 thresh = _mm256_set1_ps((float)worst->score);
		__m256 d = _mm256_loadu_ps(det + base), dpre = d;
		int j;
		for (j = 0; j < rem; j++) {
			if (!JG_ANY_GE8(d, thresh))
				goto next;
			if (j == last)
				dpre = d;
			JG_STEP8(d, j);
		}
		for (; j < len; j += 4) {
			if (!JG_ANY_GE8(d, thresh))
				goto next;
			dpre = d;
			JG_STEP8(d, j);
			JG_STEP8(d, j + 1);
			JG_STEP8(d, j + 2);
			JG_STEP8(d, j + 3);
		}
		int takes = _mm256_movemask_ps(
			_mm256_and_ps(_mm256_cmp_ps(dpre, thresh, _CMP_GE_OS), _mm256_cmp_ps(d, thresh, _CMP_NLT_US)));
		if (takes == 0)
			continue;
		_mm256_storeu_ps(pre, dpre);
		_mm256_storeu_ps(fin, d);
		for (int l = 0; l < 8; l++)
			if (takes & (1 << l))
				jg_insert(best, worst, ntop, base + l, pre[l], fin[l]);
	next:;
	}
#undef JG_STEP8
#undef JG_ANY_GE8
}
#endif

static void jg_calc_active(jg_ptm *s, uint8 *active, int32 n_active, int compall) {
	if (compall) {
		bitvec_set_all(s->f->mgau_active, s->g->n_mgau);
		return;
	}
	bitvec_clear_all(s->f->mgau_active, s->g->n_mgau);
	int sen = 0;
	for (int i = 0; i < n_active; i++) {
		sen += active[i];
		bitvec_set(s->f->mgau_active, s->sen2cb[sen]);
	}
}

static __attribute__((noinline)) void jg_norm(jg_ptm *s) {
	for (int f = 0; f < s->g->n_feat; f++) {
		int32 norm = JG_WORST_SCORE;
		for (int cb = 0; cb < s->g->n_mgau; cb++) {
			if (bitvec_is_clear(s->f->mgau_active, cb))
				continue;
			if (norm < s->f->topn[cb][f][0].score >> JG_SENSCR_SHIFT)
				norm = s->f->topn[cb][f][0].score >> JG_SENSCR_SHIFT;
		}
		for (int cb = 0; cb < s->g->n_mgau; cb++) {
			if (bitvec_is_clear(s->f->mgau_active, cb))
				continue;
			jg_topn *t = s->f->topn[cb][f];
			for (int k = 0; k < s->max_topn; k++) {
				int32 sc = t[k].score >> JG_SENSCR_SHIFT;
				sc = -(sc - norm);
				t[k].score = sc > JG_MAX_NEG_ASCR ? JG_MAX_NEG_ASCR : sc;
			}
		}
	}
}

// jg_sub16: senscr[i] -= best for every senone, as int16 arithmetic
// wraps it.
static void jg_sub16(int16 *senscr, int n, int best) {
	int i = 0;
#if defined(__x86_64__)
	__m128i b = _mm_set1_epi16((int16)best);
	for (; i + 8 <= n; i += 8)
		_mm_storeu_si128((__m128i *)(senscr + i), _mm_sub_epi16(_mm_loadu_si128((__m128i const *)(senscr + i)), b));
#elif defined(__aarch64__)
	int16x8_t b = vdupq_n_s16((int16)best);
	for (; i + 8 <= n; i += 8)
		vst1q_s16(senscr + i, vsubq_s16(vld1q_s16(senscr + i), b));
#endif
	for (; i < n; i++)
		senscr[i] -= best;
}

// jg_logadd is the library's fast_logmath_add written without a branch
// around the table's load, which the scores' order makes unpredictable.
static inline int jg_logadd(uint8 const *t, int x, int y) {
	int r = x < y ? x : y;
	int d = x < y ? y - x : x - y;
	return r - t[d];
}

// JG_MAX_MIX: the most densities (streams × top-N) a senone's score
// sums; install refuses models with more.
#define JG_MAX_MIX 64

// jg_senones is the library's senone scoring. Senones come in runs of the
// same codebook, so its top-N's weight rows and scores are looked up once
// for each run, not once for each senone.
static __attribute__((noinline)) void jg_senones(jg_ptm *s, int16 *senscr, uint8 *active, int32 n_active, int compall) {
	memset(senscr, 0, s->n_sen * sizeof(*senscr));
	if (compall)
		n_active = s->n_sen;
	int nf = s->g->n_feat, ntop = s->max_topn;
	uint8 const *lt = (uint8 const *)LOGMATH_TABLE(s->lmath_8b)->table;
	uint8 const *packed = s->mixw_cb;
	uint8 const *row[JG_MAX_MIX];
	int32 score[JG_MAX_MIX];
	int bestscore = 0x7fffffff, sen = 0, lastcb = -1;
	for (int i = 0; i < n_active; i++) {
		sen = compall ? i : sen + active[i];
		int cb = s->sen2cb[sen];
		if (cb != lastcb) {
			if (bitvec_is_clear(s->f->mgau_active, cb)) {
				for (int f = 0; f < nf; f++)
					for (int j = 0; j < ntop; j++)
						s->f->topn[cb][f][j].score = JG_MAX_NEG_ASCR;
			}
			for (int f = 0; f < nf; f++) {
				jg_topn const *t = s->f->topn[cb][f];
				for (int j = 0; j < ntop; j++) {
					row[f * ntop + j] = s->mixw[f][t[j].cw];
					score[f * ntop + j] = t[j].score;
				}
			}
			lastcb = cb;
		}
		int ascore = 0;
		if (packed != NULL) {
			for (int f = 0, k = 0; f < nf; f++) {
				int fden = 0;
				for (int j = 0; j < ntop; j++, k++) {
					int dcw = row[k][sen / 2];
					dcw = (dcw & 1) ? dcw >> 4 : dcw & 0x0f;
					int x = packed[dcw] + score[k];
					fden = j == 0 ? x : jg_logadd(lt, fden, x);
				}
				ascore += fden;
			}
		} else {
			for (int f = 0, k = 0; f < nf; f++) {
				int fden = row[k][sen] + score[k];
				k++;
				for (int j = 1; j < ntop; j++, k++)
					fden = jg_logadd(lt, fden, row[k][sen] + score[k]);
				ascore += fden;
			}
		}
		if (ascore < bestscore)
			bestscore = ascore;
		senscr[sen] = ascore;
	}
	jg_sub16(senscr, s->n_sen, bestscore);
}

// jg_eval is ptm_mgau_frame_eval with the densities in vectors.
static int jg_eval(jg_hook *h, int16 *senscr, uint8 *active, int32 n_active, mfcc_t **feat, int32 frame, int32 compall) {
	jg_ptm *s = h->s;
	int idx = frame % s->n_fast_hist;
	s->f = s->hist + idx;
	if (frame >= s->base.frame_idx) {
		jg_fast *lastf = idx == 0 ? s->hist + s->n_fast_hist - 1 : s->hist + idx - 1;
		memcpy(s->f->topn[0][0], lastf->topn[0][0], (size_t)s->g->n_mgau * s->g->n_feat * s->max_topn * sizeof(jg_topn));
		jg_calc_active(s, active, n_active, compall);
		for (int cb = 0; cb < s->g->n_mgau; cb++)
			for (int f = 0; f < s->g->n_feat; f++)
				jg_eval_topn(s, cb, f, feat[f]);
		if (frame % s->ds_ratio == 0) {
			for (int cb = 0; cb < s->g->n_mgau; cb++) {
				if (bitvec_is_clear(s->f->mgau_active, cb))
					continue;
				for (int f = 0; f < s->g->n_feat; f++) {
#ifdef JG_AVX
					if (h->width == 8) {
						jg_eval_cb8(h, cb, f, feat[f]);
						continue;
					}
#endif
					jg_eval_cb(h, cb, f, feat[f]);
				}
			}
		}
		jg_norm(s);
	}
	jg_senones(s, senscr, active, n_active, compall);
	__atomic_fetch_add(&jg_vec_frames, 1, __ATOMIC_RELAXED);
	return 0;
}

// jg_checked_eval scores a frame our way into scratch, then from the same
// state the library's way into senscr (what the search gets), and turns
// the hook off for the process if the scores or the top-N differ.
static int jg_checked_eval(jg_hook *h, int16 *senscr, uint8 *active, int32 n_active, mfcc_t **feat, int32 frame, int32 compall) {
	jg_ptm *s = h->s;
	jg_fast *slot = s->hist + frame % s->n_fast_hist;
	size_t ntop = (size_t)s->g->n_mgau * s->g->n_feat * s->max_topn;
	size_t nact = bitvec_size(s->g->n_mgau);
	memcpy(h->snap_topn, slot->topn[0][0], ntop * sizeof(jg_topn));
	memcpy(h->snap_active, slot->mgau_active, nact * sizeof(bitvec_t));
	jg_eval(h, h->scratch, active, n_active, feat, frame, compall);
	if (__atomic_load_n(&jg_corrupt, __ATOMIC_RELAXED))
		h->scratch[0] ^= 1;
	memcpy(h->ours_topn, slot->topn[0][0], ntop * sizeof(jg_topn));
	memcpy(h->ours_active, slot->mgau_active, nact * sizeof(bitvec_t));
	memcpy(slot->topn[0][0], h->snap_topn, ntop * sizeof(jg_topn));
	memcpy(slot->mgau_active, h->snap_active, nact * sizeof(bitvec_t));
	int rv = h->lib->frame_eval(&s->base, senscr, active, n_active, feat, frame, compall);
	if (memcmp(h->scratch, senscr, s->n_sen * sizeof(int16)) != 0 ||
		memcmp(h->ours_topn, slot->topn[0][0], ntop * sizeof(jg_topn)) != 0 ||
		memcmp(h->ours_active, slot->mgau_active, nact * sizeof(bitvec_t)) != 0)
		__atomic_store_n(&jg_off, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&jg_checked, 1, __ATOMIC_RELAXED);
	return rv;
}

static int jg_frame_eval(jg_mgau *m, int16 *senscr, uint8 *active, int32 n_active, mfcc_t **feat, int32 frame, int32 compall) {
	jg_hook *h = jg_hook_of(m);
	if (__atomic_load_n(&jg_off, __ATOMIC_RELAXED) || __atomic_load_n(&jg_forced_off, __ATOMIC_RELAXED))
		return h->lib->frame_eval(m, senscr, active, n_active, feat, frame, compall);
	if (frame >= m->frame_idx && (h->frames++ % JG_CHECK_EVERY == 0 || __atomic_load_n(&jg_check_all, __ATOMIC_RELAXED)))
		return jg_checked_eval(h, senscr, active, n_active, feat, frame, compall);
	return jg_eval(h, senscr, active, n_active, feat, frame, compall);
}

// A speaker transform rewrites the means and variances: the rearranged
// copies follow, or, if the new ones break an assumption, the library
// scores from then on.
static int jg_transform(jg_mgau *m, void *mllr) {
	jg_hook *h = jg_hook_of(m);
	int rv = h->lib->transform(m, mllr);
	jg_free_tables(h);
	if (!jg_model_ok(h->s) || jg_build_tables(h) != 0) {
		jg_free_tables(h);
		h->vt.frame_eval = h->lib->frame_eval;
	}
	return rv;
}

static void jg_hook_free(jg_hook *h) {
	jg_free_tables(h);
	free(h->scratch);
	free(h->snap_topn);
	free(h->ours_topn);
	free(h->snap_active);
	free(h->ours_active);
	free(h);
}

static void jg_free(jg_mgau *m) {
	jg_hook *h = jg_hook_of(m);
	m->vt = h->lib;
	jg_hook_free(h);
	m->vt->free(m);
}

int jibod_gauss_install(ps_decoder_t *ps) {
	if (!jg_cpu_ok())
		return JIBOD_GAUSS_NO_SIMD;
	jg_decoder *dec = (jg_decoder *)ps;
	if (dec->config != ps_get_config(ps) || dec->acmod == NULL)
		return JIBOD_GAUSS_LAYOUT;
	jg_acmod *ac = dec->acmod;
	if (ac->config != ps_get_config(ps) || ac->lmath != ps_get_logmath(ps) || ac->fe != ps_get_fe(ps) ||
		ac->fcb != ps_get_feat(ps) || ac->mgau == NULL || ac->mgau->vt == NULL)
		return JIBOD_GAUSS_LAYOUT;
	jg_mgau *m = ac->mgau;
	if (m->vt->frame_eval == jg_frame_eval)
		return JIBOD_GAUSS_ON;
	if (m->vt->frame_eval != ptm_mgau_frame_eval || m->vt->name == NULL || strcmp(m->vt->name, "ptm") != 0)
		return JIBOD_GAUSS_OTHER_MODEL;
	jg_ptm *s = (jg_ptm *)m;
	cmd_ln_t *cfg = ps_get_config(ps);
	if (s->config != cfg || s->lmath != ac->lmath || s->g == NULL || s->g->lmath != s->lmath ||
		s->max_topn != cmd_ln_int32_r(cfg, "-topn") || s->ds_ratio != cmd_ln_int32_r(cfg, "-ds") ||
		s->n_fast_hist != cmd_ln_int32_r(cfg, "-pl_window") + 2 || s->f < s->hist || s->f >= s->hist + s->n_fast_hist ||
		s->g->n_feat != feat_dimension1(ac->fcb) || s->n_sen <= 0 || s->sen2cb == NULL || s->mixw == NULL ||
		s->lmath_8b == NULL || logmath_get_width(s->lmath_8b) != 1 || logmath_get_shift(s->lmath_8b) != JG_SENSCR_SHIFT)
		return JIBOD_GAUSS_LAYOUT;
	for (int f = 0; f < s->g->n_feat; f++)
		if ((int64_t)s->g->featlen[f] != (int64_t)feat_dimension2(ac->fcb, f))
			return JIBOD_GAUSS_LAYOUT;
	if (s->g->n_mgau < 1 || s->g->n_mgau > 256 || s->g->n_density < 8 || s->g->n_density % 8 != 0 ||
		s->max_topn < 1 || s->max_topn > s->g->n_density || s->g->n_feat * s->max_topn > JG_MAX_MIX || s->ds_ratio < 1)
		return JIBOD_GAUSS_MODEL;
	for (int f = 0; f < s->g->n_feat; f++)
		if (s->g->featlen[f] < 1 || s->g->featlen[f] > JG_MAX_LEN)
			return JIBOD_GAUSS_MODEL;
	if (!jg_model_ok(s))
		return JIBOD_GAUSS_MODEL;
	jg_hook *h = calloc(1, sizeof(*h));
	if (h == NULL)
		return JIBOD_GAUSS_MEMORY;
	h->lib = m->vt;
	h->s = s;
	h->width = 4;
#ifdef JG_AVX
	if (!__atomic_load_n(&jg_narrow, __ATOMIC_RELAXED) && jg_avx_ok())
		h->width = 8;
#endif
	h->vt = *m->vt;
	h->vt.frame_eval = jg_frame_eval;
	h->vt.transform = jg_transform;
	h->vt.free = jg_free;
	size_t ntop = (size_t)s->g->n_mgau * s->g->n_feat * s->max_topn, nact = bitvec_size(s->g->n_mgau);
	h->scratch = calloc(s->n_sen, sizeof(int16));
	h->snap_topn = calloc(ntop, sizeof(jg_topn));
	h->ours_topn = calloc(ntop, sizeof(jg_topn));
	h->snap_active = calloc(nact, sizeof(bitvec_t));
	h->ours_active = calloc(nact, sizeof(bitvec_t));
	if (h->scratch == NULL || h->snap_topn == NULL || h->ours_topn == NULL || h->snap_active == NULL ||
		h->ours_active == NULL || jg_build_tables(h) != 0) {
		jg_hook_free(h);
		return JIBOD_GAUSS_MEMORY;
	}
	m->vt = &h->vt;
	return JIBOD_GAUSS_ON;
}

#else // no vector unit known for this architecture

int jibod_gauss_install(ps_decoder_t *ps) {
	(void)ps;
	return JIBOD_GAUSS_NO_SIMD;
}
static int jg_off, jg_forced_off, jg_corrupt, jg_check_all, jg_narrow;
static long jg_checked, jg_vec_frames;

#endif

int jibod_gauss_off(void) { return __atomic_load_n(&jg_off, __ATOMIC_RELAXED); }
void jibod_gauss_set_off(int on) { __atomic_store_n(&jg_forced_off, on, __ATOMIC_RELAXED); }
void jibod_gauss_set_corrupt(int on) {
	__atomic_store_n(&jg_corrupt, on, __ATOMIC_RELAXED);
	if (!on)
		__atomic_store_n(&jg_off, 0, __ATOMIC_RELAXED);
}
void jibod_gauss_set_check_all(int on) { __atomic_store_n(&jg_check_all, on, __ATOMIC_RELAXED); }
void jibod_gauss_set_narrow(int on) { __atomic_store_n(&jg_narrow, on, __ATOMIC_RELAXED); }
int jibod_gauss_width(struct ps_decoder_s *ps) {
#ifdef JG_HAVE_VEC
	jg_mgau *m = ((jg_acmod *)((jg_decoder *)ps)->acmod)->mgau;
	if (m->vt->frame_eval == jg_frame_eval)
		return jg_hook_of(m)->width;
#else
	(void)ps;
#endif
	return 0;
}
long jibod_gauss_checked(void) { return __atomic_load_n(&jg_checked, __ATOMIC_RELAXED); }
long jibod_gauss_vec_frames(void) { return __atomic_load_n(&jg_vec_frames, __ATOMIC_RELAXED); }

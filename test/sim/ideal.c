/* The affinity-aware weighted max-min fair allocation (progressive filling, water-filling
 * over the bipartite vCPU-pCPU graph):
 *  - a common level t rises; each unfrozen domain d gets r_d(t) = min(w_d * t, L_d), where
 *    L_d = min(its demand, its cap) and its demand is the sum of its vCPUs' (each <= 1);
 *  - t is feasible when a flow source -> domain (r_d) -> vCPU group (count * demand) ->
 *    pCPU class (only allowed ones) -> sink (one pCPU per pCPU) carries every r_d;
 *  - the largest feasible t is found from the top (every domain at L_d) down by cuts: an
 *    infeasible max flow gives a minimum cut, whose capacity bounds the domains on its source
 *    side, and t drops to the largest level that cut allows (a Newton step on the
 *    parametric flow; each step is exact and lowers t, so it ends at the feasible maximum);
 *  - the domains at L_d, and those that cannot push more (no residual path to the sink),
 *    are frozen at their rate; the others rise again, until none is left.
 * Each vCPU at most one pCPU and each pCPU at most one vCPU's worth at a time is all that
 * time sharing needs (a fractional vCPU x pCPU matrix with row and column sums <= 1 is a
 * schedule), so the flow is the exact feasibility test. vCPUs of a domain with the same
 * mask and demand are one node, and pCPUs that no mask tells apart are one class (capacity
 * = their count): the aggregated flow splits evenly back into a per-vCPU, per-pCPU one, so
 * nothing is lost and 1024 domains x 64 vCPUs stay a small graph. */
#include <stdlib.h>
#include <string.h>

#include "test/sim/ideal.h"

#define EPS 1e-9

struct edge {
	unsigned to, rev;
	double cap, flow;
};

struct graph {
	unsigned n;
	unsigned *first, *cnt, *fill; /* adjacency: edges of u are e[first[u] .. +cnt[u]] */
	struct edge *e;
	unsigned ne, cap_e;
	int *level;
	unsigned *it, *queue;
};

/* Edges are added in two passes (count, then place) so adjacency is contiguous. */
struct edge_req {
	unsigned u, v;
	double cap;
};

static int graph_build(struct graph *G, unsigned n, const struct edge_req *r, unsigned nr)
{
	memset(G, 0, sizeof(*G));
	G->n = n;
	G->first = calloc(n + 1, sizeof(unsigned));
	G->cnt = calloc(n, sizeof(unsigned));
	G->fill = calloc(n, sizeof(unsigned));
	G->level = calloc(n, sizeof(int));
	G->it = calloc(n, sizeof(unsigned));
	G->queue = calloc(n, sizeof(unsigned));
	G->e = calloc(2 * (size_t)nr + 1, sizeof(struct edge));
	if (!G->first || !G->cnt || !G->fill || !G->level || !G->it || !G->queue || !G->e)
		return -1;
	for (unsigned i = 0; i < nr; i++) {
		G->cnt[r[i].u]++;
		G->cnt[r[i].v]++;
	}
	for (unsigned u = 0; u < n; u++)
		G->first[u + 1] = G->first[u] + G->cnt[u];
	for (unsigned i = 0; i < nr; i++) {
		unsigned a = G->first[r[i].u] + G->fill[r[i].u]++;
		unsigned b = G->first[r[i].v] + G->fill[r[i].v]++;
		G->e[a] = (struct edge){r[i].v, b, r[i].cap, 0};
		G->e[b] = (struct edge){r[i].u, a, 0, 0};
	}
	G->ne = 2 * nr;
	return 0;
}

static void graph_free(struct graph *G)
{
	free(G->first);
	free(G->cnt);
	free(G->fill);
	free(G->level);
	free(G->it);
	free(G->queue);
	free(G->e);
}

static double resid(const struct edge *e)
{
	return e->cap - e->flow;
}

static int bfs(struct graph *G, unsigned s, unsigned t)
{
	for (unsigned u = 0; u < G->n; u++)
		G->level[u] = -1;
	unsigned qh = 0, qt = 0;
	G->level[s] = 0;
	G->queue[qt++] = s;
	while (qh < qt) {
		unsigned u = G->queue[qh++];
		for (unsigned k = G->first[u]; k < G->first[u + 1]; k++) {
			struct edge *e = &G->e[k];
			if (G->level[e->to] < 0 && resid(e) > EPS) {
				G->level[e->to] = G->level[u] + 1;
				G->queue[qt++] = e->to;
			}
		}
	}
	return G->level[t] >= 0;
}

static double dfs(struct graph *G, unsigned u, unsigned t, double f)
{
	if (u == t)
		return f;
	for (; G->it[u] < G->first[u + 1]; G->it[u]++) {
		struct edge *e = &G->e[G->it[u]];
		if (G->level[e->to] != G->level[u] + 1 || resid(e) <= EPS)
			continue;
		double d = dfs(G, e->to, t, f < resid(e) ? f : resid(e));
		if (d > 0) {
			e->flow += d;
			G->e[e->rev].flow -= d;
			return d;
		}
	}
	return 0;
}

/* Dinic from zero flow. Depth is at most 4 (s, dom, group, class, t): no deep recursion. */
static double maxflow(struct graph *G, unsigned s, unsigned t)
{
	for (unsigned k = 0; k < G->ne; k++)
		G->e[k].flow = 0;
	double total = 0;
	while (bfs(G, s, t)) {
		for (unsigned u = 0; u < G->n; u++)
			G->it[u] = G->first[u];
		double f;
		while ((f = dfs(G, s, t, 1e300)) > 0)
			total += f;
	}
	return total;
}

/* Nodes: source, sink, domains, groups, pCPU classes. */
enum { SRC = 0, SNK = 1 };

struct solver {
	unsigned nd, ng, nc;
	struct graph G;
	unsigned *src_edge; /* edge index source -> domain d */
	const double *w;
	double *lim, *rate;
	char *frozen, *reach; /* reach: can still reach the sink (residual) */
};

static double r_at(const struct solver *S, unsigned d, double t)
{
	if (S->frozen[d])
		return S->rate[d];
	double r = S->w[d] * t;
	return r < S->lim[d] ? r : S->lim[d];
}

static void set_level(struct solver *S, double t)
{
	for (unsigned d = 0; d < S->nd; d++)
		S->G.e[S->src_edge[d]].cap = r_at(S, d, t);
}

/* The largest t <= hi at which the domains of the cut's source side fit in `inner` (the
 * capacity of the cut's other edges): sum over them of r_d(t) <= inner. Bisection on a
 * nondecreasing piecewise-linear function. */
static double cut_level(const struct solver *S, const char *side, double inner, double lo,
			double hi)
{
	for (int i = 0; i < 200 && hi - lo > 1e-15 * (hi > 1 ? hi : 1); i++) {
		double mid = (lo + hi) / 2, sum = 0;
		for (unsigned d = 0; d < S->nd; d++)
			if (side[2 + d])
				sum += r_at(S, d, mid);
		if (sum <= inner + EPS)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Nodes that can still reach the sink through residual edges. */
static void mark_reach(struct solver *S)
{
	struct graph *G = &S->G;
	memset(S->reach, 0, G->n);
	unsigned qh = 0, qt = 0;
	S->reach[SNK] = 1;
	G->queue[qt++] = SNK;
	while (qh < qt) {
		unsigned v = G->queue[qh++];
		for (unsigned k = G->first[v]; k < G->first[v + 1]; k++) {
			/* The reverse of an edge u -> v is stored at v; u reaches v if that edge
			 * (u -> v) has residual. */
			struct edge *back = &G->e[k];
			struct edge *fwd = &G->e[back->rev];
			if (!S->reach[back->to] && resid(fwd) > EPS) {
				S->reach[back->to] = 1;
				G->queue[qt++] = back->to;
			}
		}
	}
}

/* Source side of the minimum cut after a max flow: level[] >= 0 from the last BFS. */
static double cut_inner(const struct solver *S, char *side)
{
	const struct graph *G = &S->G;
	double inner = 0;
	for (unsigned u = 0; u < G->n; u++)
		side[u] = G->level[u] >= 0;
	for (unsigned u = 0; u < G->n; u++) {
		if (!side[u] || u == SRC)
			continue;
		for (unsigned k = G->first[u]; k < G->first[u + 1]; k++)
			if (!side[G->e[k].to] && G->e[k].cap > 0)
				inner += G->e[k].cap;
	}
	return inner;
}

static int solve(struct solver *S, double *share)
{
	char *side = calloc(S->G.n, 1);
	if (!side)
		return -1;
	double t_done = 0;
	for (;;) {
		double hi = 0, want = 0;
		unsigned active = 0;
		for (unsigned d = 0; d < S->nd; d++)
			if (!S->frozen[d]) {
				active++;
				double td = S->lim[d] / S->w[d];
				hi = td > hi ? td : hi;
			}
		if (!active)
			break;
		double t = hi;
		int have_cut = 0;
		for (int iter = 0; iter < 10000; iter++) {
			set_level(S, t);
			want = 0;
			for (unsigned d = 0; d < S->nd; d++)
				want += r_at(S, d, t);
			double got = maxflow(&S->G, SRC, SNK);
			if (got >= want - EPS * (want > 1 ? want : 1))
				break;
			double inner = cut_inner(S, side);
			have_cut = 1;
			double nt = cut_level(S, side, inner, t_done, t);
			if (nt >= t) /* no progress: rounding; accept */
				break;
			t = nt;
		}
		mark_reach(S);
		unsigned froze = 0;
		for (unsigned d = 0; d < S->nd; d++) {
			if (S->frozen[d])
				continue;
			double r = r_at(S, d, t);
			if (r >= S->lim[d] - EPS || !S->reach[2 + d]) {
				S->rate[d] = r;
				S->frozen[d] = 1;
				froze++;
			}
		}
		if (!froze) {
			/* Rounding left every domain a sliver of residual: the last cut's
			 * domains are the tight ones (or, without a cut, all of them). */
			for (unsigned d = 0; d < S->nd; d++)
				if (!S->frozen[d] && (!have_cut || side[2 + d])) {
					S->rate[d] = r_at(S, d, t);
					S->frozen[d] = 1;
					froze++;
				}
			if (!froze)
				for (unsigned d = 0; d < S->nd; d++)
					if (!S->frozen[d]) {
						S->rate[d] = r_at(S, d, t);
						S->frozen[d] = 1;
					}
		}
		t_done = t;
	}
	for (unsigned d = 0; d < S->nd; d++)
		share[d] = S->rate[d];
	free(side);
	return 0;
}

struct mask {
	uint64_t w[IDEAL_MASK_WORDS];
};

/* As numbers, the highest word first. */
static int cmp_mask(const void *a, const void *b)
{
	const struct mask *x = a, *y = b;
	for (int i = IDEAL_MASK_WORDS - 1; i >= 0; i--)
		if (x->w[i] != y->w[i])
			return x->w[i] < y->w[i] ? -1 : 1;
	return 0;
}

/* g's mask restricted to the pCPUs that exist (all of them for an empty one); false when
 * that leaves none. */
static int group_mask(const struct ideal_group *g, unsigned npcpus, struct mask *m)
{
	uint64_t any = 0, left = 0;
	for (unsigned i = 0; i < IDEAL_MASK_WORDS; i++)
		any |= g->mask[i];
	for (unsigned i = 0; i < IDEAL_MASK_WORDS; i++) {
		uint64_t all = npcpus >= 64 * (i + 1) ? ~0ull
			       : npcpus <= 64 * i     ? 0
						      : (1ull << (npcpus - 64 * i)) - 1;
		m->w[i] = (any ? g->mask[i] : ~0ull) & all;
		left |= m->w[i];
	}
	return left != 0;
}

static int mask_has(const struct mask *m, unsigned p)
{
	return (m->w[p / 64] >> (p % 64)) & 1;
}

int ideal_solve(unsigned npcpus, unsigned ndoms, const double *weight, const double *cap,
		unsigned ngroups, const struct ideal_group *g, double *share)
{
	if (!npcpus || npcpus > IDEAL_MAX_PCPUS)
		return -1;
	for (unsigned d = 0; d < ndoms; d++) {
		share[d] = 0;
		if (!(weight[d] > 0) || cap[d] < 0)
			return -1;
	}
	/* pCPU classes: the atoms of the partition every group mask induces. */
	struct mask *masks = malloc((ngroups + 1) * sizeof(*masks));
	if (!masks)
		return -1;
	unsigned nm = 0;
	for (unsigned i = 0; i < ngroups; i++) {
		if (g[i].dom >= ndoms || g[i].demand < 0 || g[i].demand > 1)
			return free(masks), -1;
		if (!group_mask(&g[i], npcpus, &masks[nm++]))
			return free(masks), -1;
	}
	qsort(masks, nm, sizeof(*masks), cmp_mask);
	unsigned cls[IDEAL_MAX_PCPUS] = {0}, ncls = 1;
	for (unsigned i = 0; i < nm; i++) {
		if (i && !cmp_mask(&masks[i], &masks[i - 1]))
			continue;
		int map[2 * IDEAL_MAX_PCPUS];
		for (unsigned k = 0; k < 2 * IDEAL_MAX_PCPUS; k++)
			map[k] = -1;
		unsigned nn = 0;
		for (unsigned p = 0; p < npcpus; p++) {
			unsigned key = cls[p] * 2 + (unsigned)mask_has(&masks[i], p);
			if (map[key] < 0)
				map[key] = (int)nn++;
			cls[p] = (unsigned)map[key];
		}
		ncls = nn;
	}
	free(masks);
	unsigned csize[IDEAL_MAX_PCPUS] = {0}, crep[IDEAL_MAX_PCPUS] = {0};
	for (unsigned p = 0; p < npcpus; p++) {
		if (!csize[cls[p]])
			crep[cls[p]] = p;
		csize[cls[p]]++;
	}

	struct solver S;
	memset(&S, 0, sizeof(S));
	S.nd = ndoms;
	S.ng = ngroups;
	S.nc = ncls;
	S.w = weight;
	unsigned n = 2 + ndoms + ngroups + ncls;
	size_t maxr = (size_t)ndoms + ngroups + (size_t)ngroups * ncls + ncls;
	struct edge_req *r = malloc(maxr * sizeof(*r));
	S.src_edge = calloc(ndoms ? ndoms : 1, sizeof(unsigned));
	S.lim = calloc(ndoms ? ndoms : 1, sizeof(double));
	S.rate = calloc(ndoms ? ndoms : 1, sizeof(double));
	S.frozen = calloc(ndoms ? ndoms : 1, 1);
	S.reach = calloc(n, 1);
	int rc = -1;
	if (!r || !S.src_edge || !S.lim || !S.rate || !S.frozen || !S.reach)
		goto out;
	unsigned nr = 0;
	for (unsigned d = 0; d < ndoms; d++)
		r[nr++] = (struct edge_req){SRC, 2 + d, 0};
	for (unsigned i = 0; i < ngroups; i++) {
		double c = g[i].demand * g[i].count;
		S.lim[g[i].dom] += c;
		unsigned gn = 2 + ndoms + i;
		r[nr++] = (struct edge_req){2 + g[i].dom, gn, c};
		struct mask m;
		group_mask(&g[i], npcpus, &m);
		for (unsigned k = 0; k < ncls; k++)
			if (mask_has(&m, crep[k]))
				r[nr++] = (struct edge_req){gn, 2 + ndoms + ngroups + k, 1e300};
	}
	for (unsigned k = 0; k < ncls; k++)
		r[nr++] = (struct edge_req){2 + ndoms + ngroups + k, SNK, (double)csize[k]};
	for (unsigned d = 0; d < ndoms; d++) {
		if (cap[d] > 0 && cap[d] < S.lim[d])
			S.lim[d] = cap[d];
		if (S.lim[d] > npcpus)
			S.lim[d] = npcpus;
		if (S.lim[d] <= EPS) { /* wants nothing */
			S.frozen[d] = 1;
			S.rate[d] = 0;
		}
	}
	if (graph_build(&S.G, n, r, nr))
		goto out;
	/* Source edges were requested first, one per domain, so they are the source's first
	 * adjacency entries in domain order. */
	for (unsigned d = 0; d < ndoms; d++)
		S.src_edge[d] = S.G.first[SRC] + d;
	rc = solve(&S, share);
out:
	graph_free(&S.G);
	free(r);
	free(S.src_edge);
	free(S.lim);
	free(S.rate);
	free(S.frozen);
	free(S.reach);
	return rc;
}

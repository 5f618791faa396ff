/* Loads a manifest (default robots/franka_panda/manifest.yaml), prints its joints and
 * checked pairs, then checks a trajectory of 100 poses interpolated between two
 * configurations inside the joint limits, one line per step. Exits non-zero on any error.
 *
 *   make c-example        builds target/c-example/check_trajectory and runs it
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collide.h"

#define STEPS 100

static int fail(const char *what, CollideStatus st) {
    fprintf(stderr, "check_trajectory: %s failed (status %d): %s\n", what, (int)st,
            collide_last_error());
    return 1;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "robots/franka_panda/manifest.yaml";
    const CollideModel *model = NULL;
    CollideStatus st = collide_model_load(path, &model);
    if (st != COLLIDE_STATUS_OK) return fail("collide_model_load", st);

    size_t nq = collide_model_joint_count(model);
    size_t np = collide_model_pair_count(model);
    printf("%s: %zu joints, %zu checked pairs, manifest margin %.3f m\n", path, nq, np,
           collide_model_margin(model));
    double *lo = malloc(nq * sizeof *lo), *hi = malloc(nq * sizeof *hi);
    double *q = malloc(nq * sizeof *q);
    if (!lo || !hi || !q) return 1;
    for (size_t i = 0; i < nq; i++) {
        st = collide_model_joint_limits(model, i, &lo[i], &hi[i]);
        if (st != COLLIDE_STATUS_OK) return fail("collide_model_joint_limits", st);
        printf("  joint %zu: %s [%.3f, %.3f]\n", i, collide_model_joint_name(model, i), lo[i],
               hi[i]);
    }

    CollideSession *session = NULL, *coherent = NULL;
    st = collide_session_new(model, &session);
    if (st != COLLIDE_STATUS_OK) return fail("collide_session_new", st);
    /* A second session for the coherent mode: its cache is per session. */
    st = collide_session_new(model, &coherent);
    if (st != COLLIDE_STATUS_OK) return fail("collide_session_new", st);
    unsigned long skipped = 0, pairs = 0;

    /* From 20 % to 80 % of every joint's range: both ends inside the limits. */
    const double margin = 0.021; /* 21 mm: some steps of this path come closer, some do not */
    int colliding = 0;
    double least = INFINITY;
    for (int s = 0; s < STEPS; s++) {
        double t = (double)s / (STEPS - 1);
        for (size_t i = 0; i < nq; i++) {
            double a = lo[i] + 0.2 * (hi[i] - lo[i]), b = lo[i] + 0.8 * (hi[i] - lo[i]);
            q[i] = a + t * (b - a);
        }
        CollideResult r;
        st = collide_check(session, q, nq, margin, &r);
        if (st != COLLIDE_STATUS_OK) return fail("collide_check", st);
        colliding += r.in_collision;
        /* The coherent mode skips pairs that cannot have come within the margin; its
         * verdict is the same. */
        CollideResult c;
        st = collide_check_coherent(coherent, q, nq, margin, &c);
        if (st != COLLIDE_STATUS_OK) return fail("collide_check_coherent", st);
        if (c.in_collision != r.in_collision) {
            fprintf(stderr, "check_trajectory: step %d: coherent verdict differs\n", s);
            return 1;
        }
        CollideStats stats;
        st = collide_session_stats(coherent, &stats);
        if (st != COLLIDE_STATUS_OK) return fail("collide_session_stats", st);
        skipped += stats.skipped_pairs;
        pairs += stats.skipped_pairs + stats.exact_pairs;
        if (r.min_distance < least) least = r.min_distance;
        printf("step %3d  %s  min distance >= %+.4f m  (%s - %s)\n", s,
               r.in_collision ? "COLLISION" : "free     ", r.min_distance,
               r.pair < 0 ? "-" : collide_model_link_name(model, (size_t)r.link_a),
               r.pair < 0 ? "-" : collide_model_link_name(model, (size_t)r.link_b));
    }
    printf("%d of %d steps within %.3f m; least distance >= %+.4f m\n", colliding, STEPS, margin,
           least);
    printf("coherent mode: same verdicts, %lu of %lu pair checks skipped\n", skipped, pairs);

    /* A wrong length is refused with a message, not a crash. */
    CollideResult r;
    st = collide_check(session, q, nq + 1, margin, &r);
    if (st != COLLIDE_STATUS_BAD_ARGUMENT) {
        fprintf(stderr, "check_trajectory: a wrong-length q was not refused\n");
        return 1;
    }
    printf("wrong length refused: %s\n", collide_last_error());

    collide_session_free(session);
    collide_session_free(coherent);
    collide_model_free(model);
    free(lo);
    free(hi);
    free(q);
    return 0;
}

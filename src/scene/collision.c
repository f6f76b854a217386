/* collision.c — the world's collision settings (CollisionSettings on the
 * root entity): the component's hooks, validation, replacing the settings,
 * ToggleCollisions, and dropping references to deleted objects.
 *
 * A stored value is one allocation: the rules array followed by every
 * rule's refs, left then right, so copying is one malloc and freeing one
 * free. Values are normalized when stored (absent optionals and the margin
 * of an exclusion are 0) so that equal settings are equal bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "scene/codec.h"
#include "scene/scene_internal.h"

/* ---- the component ----------------------------------------------------- */

static bool settings_empty(const wk_collision_settings *c)
{
    return !c->disable_collision_checking && !c->has_minimum_margin && !c->has_collision_check_spacing &&
           c->rule_count == 0;
}

/* Lays src out as one allocation in dst, normalized. */
static int pack(wk_collision_settings *dst, const wk_collision_settings *src)
{
    size_t refs = 0;
    for (size_t i = 0; i < src->rule_count; i++) {
        size_t n = src->rules[i].left_count + src->rules[i].right_count;
        if (n > SIZE_MAX / sizeof(wk_collision_ref) - refs)
            return WK_NOMEM;
        refs += n;
    }
    if (src->rule_count > (SIZE_MAX / 2) / sizeof(wk_collision_rule) ||
        refs > (SIZE_MAX / 2) / sizeof(wk_collision_ref))
        return WK_NOMEM;
    wk_collision_rule *rules = NULL;
    if (src->rule_count) {
        rules = malloc(src->rule_count * sizeof *rules + refs * sizeof(wk_collision_ref));
        if (!rules)
            return WK_NOMEM;
    }
    wk_collision_ref *at = rules ? (wk_collision_ref *)(rules + src->rule_count) : NULL;
    for (size_t i = 0; i < src->rule_count; i++) {
        const wk_collision_rule *r = &src->rules[i];
        wk_collision_ref *left = at, *right = at + r->left_count;
        for (size_t k = 0; k < r->left_count; k++)
            left[k] = (wk_collision_ref){r->left[k].entity, r->left[k].whole_object};
        for (size_t k = 0; k < r->right_count; k++)
            right[k] = (wk_collision_ref){r->right[k].entity, r->right[k].whole_object};
        at += r->left_count + r->right_count;
        rules[i] = (wk_collision_rule){left, r->left_count, r->right_count ? right : NULL, r->right_count, r->action,
                                       r->action == WK_COLLISION_MARGIN ? r->hard_margin : 0};
    }
    *dst = (wk_collision_settings){
        .disable_collision_checking = src->disable_collision_checking,
        .has_minimum_margin = src->has_minimum_margin,
        .minimum_margin = src->has_minimum_margin ? src->minimum_margin : 0,
        .has_collision_check_spacing = src->has_collision_check_spacing,
        .collision_check_spacing = src->has_collision_check_spacing ? src->collision_check_spacing : 0,
        .rules = rules,
        .rule_count = src->rule_count,
    };
    return WK_OK;
}

static int settings_copy(void *dst, const void *src)
{
    int rc = pack(dst, src);
    if (rc)
        *(wk_collision_settings *)dst = (wk_collision_settings){0};
    return rc;
}

static void settings_destroy(void *value)
{
    free((void *)((wk_collision_settings *)value)->rules);
}

static bool refs_equal(const wk_collision_ref *a, const wk_collision_ref *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].entity != b[i].entity || a[i].whole_object != b[i].whole_object)
            return false;
    return true;
}

static bool settings_equal(const void *a, const void *b)
{
    const wk_collision_settings *x = a, *y = b;
    if (x->disable_collision_checking != y->disable_collision_checking ||
        x->has_minimum_margin != y->has_minimum_margin || !wk__same_f64(x->minimum_margin, y->minimum_margin) ||
        x->has_collision_check_spacing != y->has_collision_check_spacing ||
        !wk__same_f64(x->collision_check_spacing, y->collision_check_spacing) || x->rule_count != y->rule_count)
        return false;
    for (size_t i = 0; i < x->rule_count; i++) {
        const wk_collision_rule *r = &x->rules[i], *q = &y->rules[i];
        if (r->action != q->action || !wk__same_f64(r->hard_margin, q->hard_margin) ||
            r->left_count != q->left_count || r->right_count != q->right_count ||
            !refs_equal(r->left, q->left, r->left_count) || !refs_equal(r->right, q->right, r->right_count))
            return false;
    }
    return true;
}

static void put_refs(wk__enc *e, const wk_collision_ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wk__put_u64(e, refs[i].entity);
        wk__put_u8(e, refs[i].whole_object);
    }
}

/* flags (bit 0 disable, 1 minimum margin set, 2 spacing set), minimum
 * margin, spacing, rule count; per rule: action, margin, left and right
 * counts, then the refs (entity id, whole-object flag). */
static int settings_serialize(const void *value, wk_buf *out)
{
    const wk_collision_settings *c = value;
    wk__enc e = {out, WK_OK};
    if (c->rule_count > UINT32_MAX)
        return WK_RANGE;
    wk__put_u8(&e, (uint8_t)(c->disable_collision_checking | c->has_minimum_margin << 1 |
                             c->has_collision_check_spacing << 2));
    wk__put_f64(&e, c->minimum_margin);
    wk__put_f64(&e, c->collision_check_spacing);
    wk__put_u32(&e, (uint32_t)c->rule_count);
    for (size_t i = 0; i < c->rule_count; i++) {
        const wk_collision_rule *r = &c->rules[i];
        if (r->left_count > UINT32_MAX || r->right_count > UINT32_MAX)
            return WK_RANGE;
        wk__put_u8(&e, (uint8_t)r->action);
        wk__put_f64(&e, r->hard_margin);
        wk__put_u32(&e, (uint32_t)r->left_count);
        wk__put_u32(&e, (uint32_t)r->right_count);
        put_refs(&e, r->left, r->left_count);
        put_refs(&e, r->right, r->right_count);
    }
    return e.rc;
}

/* The checks that need no scene: margins, spacing, actions, non-empty left
 * sides. Shared by the setter (with messages) and the deserializer. */
static int check_values(const wk_collision_settings *c, wk_status *st)
{
    if (c->has_minimum_margin && !(isfinite(c->minimum_margin) && c->minimum_margin >= 0))
        return wk_fail(st, WK_INVALID, "collision settings: minimum margin %g is negative or not finite",
                       c->minimum_margin);
    if (c->has_collision_check_spacing && !(isfinite(c->collision_check_spacing) && c->collision_check_spacing > 0))
        return wk_fail(st, WK_INVALID, "collision settings: collision check spacing %g is not positive and finite",
                       c->collision_check_spacing);
    for (size_t i = 0; i < c->rule_count; i++) {
        const wk_collision_rule *r = &c->rules[i];
        if (r->action != WK_COLLISION_EXCLUDE && r->action != WK_COLLISION_MARGIN)
            return wk_fail(st, WK_INVALID, "collision rule %zu: no action (exclusion or margin)", i);
        if (r->action == WK_COLLISION_MARGIN && !(isfinite(r->hard_margin) && r->hard_margin >= 0))
            return wk_fail(st, WK_INVALID, "collision rule %zu: hard margin %g is negative or not finite", i,
                           r->hard_margin);
        if (r->left_count == 0)
            return wk_fail(st, WK_INVALID, "collision rule %zu: the left side is empty", i);
        if ((r->left_count && !r->left) || (r->right_count && !r->right))
            return wk_fail(st, WK_INVALID, "collision rule %zu: a side has a count but no refs", i);
    }
    return WK_OK;
}

/* Reads rules; with rules NULL only counts their refs into *refs. */
static void get_rules(wk__dec *d, size_t rule_count, wk_collision_rule *rules, wk_collision_ref *refs,
                      size_t *ref_count)
{
    size_t used = 0;
    for (size_t i = 0; i < rule_count && !d->bad; i++) {
        uint8_t action = wk__get_u8(d);
        double margin = wk__get_f64(d);
        uint32_t left = wk__get_u32(d), right = wk__get_u32(d);
        /* Each ref takes 9 bytes: a count beyond what is left is a lie. */
        if (d->bad || ((uint64_t)left + right) * 9 > d->left || (action != WK_COLLISION_MARGIN && margin != 0)) {
            d->bad = true;
            return;
        }
        for (size_t k = 0; k < (size_t)left + right; k++) {
            wk_collision_ref ref = {wk__get_u64(d), wk__get_bool(d)};
            if (ref.entity == WK_NULL_ENTITY)
                d->bad = true;
            if (rules)
                refs[used + k] = ref;
        }
        if (rules)
            rules[i] = (wk_collision_rule){refs + used, left, right ? refs + used + left : NULL, right,
                                           (wk_collision_action)action, margin};
        used += (size_t)left + right;
    }
    *ref_count = used;
}

static int settings_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    uint8_t flags = wk__get_u8(&d);
    double minimum = wk__get_f64(&d), spacing = wk__get_f64(&d);
    uint32_t rule_count = wk__get_u32(&d);
    /* A rule takes at least 17 bytes. */
    if (d.bad || flags > 7 || (!(flags & 2) && minimum != 0) || (!(flags & 4) && spacing != 0) ||
        (uint64_t)rule_count * 17 > d.left)
        return WK_PARSE;
    const uint8_t *rules_at = d.p;
    size_t rules_len = d.left, ref_count;
    get_rules(&d, rule_count, NULL, NULL, &ref_count);
    if (d.bad || d.left)
        return WK_PARSE;
    wk_collision_rule *rules = NULL;
    if (rule_count) {
        rules = malloc(rule_count * sizeof *rules + ref_count * sizeof(wk_collision_ref));
        if (!rules)
            return WK_NOMEM;
    }
    d = (wk__dec){rules_at, rules_len, false};
    if (rules)
        get_rules(&d, rule_count, rules, (wk_collision_ref *)(rules + rule_count), &ref_count);
    wk_collision_settings *c = dst;
    *c = (wk_collision_settings){flags & 1, flags & 2, minimum, flags & 4, spacing, rules, rule_count};
    if (check_values(c, NULL)) {
        free(rules);
        return WK_PARSE;
    }
    return WK_OK;
}

const wk_type_hooks wk__collision_hooks = {.copy = settings_copy,
                                           .destroy = settings_destroy,
                                           .equal = settings_equal,
                                           .serialize = settings_serialize,
                                           .deserialize = settings_deserialize};

int wk_collision_settings_copy(wk_collision_settings *dst, const wk_collision_settings *src)
{
    return settings_copy(dst, src);
}

void wk_collision_settings_fini(wk_collision_settings *settings)
{
    settings_destroy(settings);
    *settings = (wk_collision_settings){0};
}

const wk_collision_settings *wk_scene_collision_settings(const wk_scene *s)
{
    static const wk_collision_settings none = {0};
    const wk_collision_settings *c = s->root ? wk_ecm_get(s->ecm, s->root, s->types.collision) : NULL;
    return c ? c : &none;
}

/* Stores settings on the root entity; the default removes the component. */
static int store(wk_scene *s, const wk_collision_settings *c, wk_status *st)
{
    int rc = settings_empty(c) ? wk_ecm_remove(s->ecm, s->root, s->types.collision)
                               : wk_ecm_set(s->ecm, s->root, s->types.collision, c);
    return rc < 0 ? wk_fail(st, rc, "storing the collision settings: %s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}

/* ---- validation against the scene --------------------------------------- */

/* Whether e can be named by a rule or a toggle: an existing entity of an
 * object that is not a frame. what names it in messages. */
static int check_entity(const wk_scene *s, wk_entity e, const char *what, wk_status *st)
{
    if (!wk_ecm_exists(s->ecm, e) || !wk_scene_object_of(s, e))
        return wk_fail(st, WK_NOT_FOUND, "%s: entity %llu does not exist or belongs to no object", what,
                       (unsigned long long)e);
    if (wk_scene_is_frame(s, e))
        return wk_fail(st, WK_INVALID, "%s: '%s' is a frame, not an entity of an object", what,
                       wk__entity_name(s, e));
    return WK_OK;
}

static int check_refs(const wk_scene *s, size_t rule, const char *side, const wk_collision_ref *refs, size_t n,
                      wk_status *st)
{
    char what[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(what, sizeof what, "collision rule %zu, %s ref %zu", rule, side, i);
        int rc = check_entity(s, refs[i].entity, what, st);
        if (rc)
            return rc;
        if (refs[i].whole_object && !wk_scene_is_object(s, refs[i].entity))
            return wk_fail(st, WK_INVALID, "%s: '%s' is not an object's base entity, so it cannot stand for a whole "
                           "object", what, wk__entity_name(s, refs[i].entity));
    }
    return WK_OK;
}

int wk_scene_set_collision_settings(wk_scene *s, const wk_collision_settings *settings, wk_status *st)
{
    if (!s->root)
        return wk_fail(st, WK_PRECONDITION, "the scene is not an object world");
    int rc = check_values(settings, st);
    for (size_t i = 0; rc == WK_OK && i < settings->rule_count; i++) {
        const wk_collision_rule *r = &settings->rules[i];
        if ((rc = check_refs(s, i, "left", r->left, r->left_count, st)) == WK_OK)
            rc = check_refs(s, i, "right", r->right, r->right_count, st);
    }
    return rc ? rc : store(s, settings, st);
}

/* ---- rule arithmetic ---------------------------------------------------- */

/* Whether ref covers entity e: it is e, or e's object as a whole. */
static bool covers(const wk_scene *s, wk_collision_ref ref, wk_entity e)
{
    return ref.whole_object ? wk_scene_object_of(s, e) == ref.entity : ref.entity == e;
}

static bool side_covers(const wk_scene *s, const wk_collision_ref *refs, size_t n, wk_entity e)
{
    for (size_t i = 0; i < n; i++)
        if (covers(s, refs[i], e))
            return true;
    return false;
}

/* Whether the rule covers the pair {x, y}, either way round. */
static bool rule_covers(const wk_scene *s, const wk_collision_rule *r, wk_entity x, wk_entity y)
{
    bool any = r->right_count == 0;
    return (side_covers(s, r->left, r->left_count, x) && (any || side_covers(s, r->right, r->right_count, y))) ||
           (side_covers(s, r->left, r->left_count, y) && (any || side_covers(s, r->right, r->right_count, x)));
}

/* A set of entities given to a toggle. */
typedef struct set {
    const wk_entity *items;
    size_t count;
} set;

static bool in_set(set a, wk_entity e)
{
    for (size_t i = 0; i < a.count; i++)
        if (a.items[i] == e)
            return true;
    return false;
}

/* Whether the rule covers some pair of an entity of a and a different one
 * of b. */
static bool rule_touches(const wk_scene *s, const wk_collision_rule *r, set a, set b)
{
    for (size_t i = 0; i < a.count; i++)
        for (size_t j = 0; j < b.count; j++)
            if (a.items[i] != b.items[j] && rule_covers(s, r, a.items[i], b.items[j]))
                return true;
    return false;
}

/* Rules under construction: refs by index into one growing array, turned
 * into pointers once the array stops moving. */
typedef struct rule_draft {
    size_t left_at, left_count, right_at, right_count;
    wk_collision_action action;
    double hard_margin;
} rule_draft;

typedef struct drafts {
    rule_draft *rules;
    size_t count, cap;
    wk_collision_ref *refs;
    size_t ref_count, ref_cap;
    bool nomem;
} drafts;

/* items (count used of *cap, each size bytes) with room for one more:
 * moved or not, or NULL, with d->nomem set and items still valid, when
 * memory runs out. */
static void *grow(drafts *d, void *items, size_t count, size_t *cap, size_t size)
{
    if (d->nomem)
        return NULL;
    if (wk__grow(&items, cap, count + 1, size)) {
        d->nomem = true;
        return NULL;
    }
    return items;
}

static void push_ref(drafts *d, wk_collision_ref ref)
{
    wk_collision_ref *refs = grow(d, d->refs, d->ref_count, &d->ref_cap, sizeof *refs);
    if (refs) {
        d->refs = refs;
        d->refs[d->ref_count++] = ref;
    }
}

static void push_refs(drafts *d, const wk_collision_ref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        push_ref(d, refs[i]);
}

/* Opens a rule whose left side starts at the next ref pushed. */
static void open_rule(drafts *d, wk_collision_action action, double hard_margin)
{
    rule_draft *rules = grow(d, d->rules, d->count, &d->cap, sizeof *rules);
    if (rules) {
        d->rules = rules;
        d->rules[d->count++] = (rule_draft){.left_at = d->ref_count, .action = action, .hard_margin = hard_margin};
    }
}

/* Ends the open rule's left side; its right side starts here. */
static void end_left(drafts *d)
{
    if (d->nomem)
        return;
    rule_draft *r = &d->rules[d->count - 1];
    r->left_count = d->ref_count - r->left_at;
    r->right_at = d->ref_count;
}

/* Ends the open rule; drops it when a side that must not be empty is. */
static void close_rule(drafts *d, bool right_may_be_empty)
{
    if (d->nomem)
        return;
    rule_draft *r = &d->rules[d->count - 1];
    r->right_count = d->ref_count - r->right_at;
    if (r->left_count == 0 || (r->right_count == 0 && !right_may_be_empty)) {
        d->ref_count = r->left_at;
        d->count--;
    }
}

static void push_rule(drafts *d, const wk_collision_rule *r)
{
    open_rule(d, r->action, r->hard_margin);
    push_refs(d, r->left, r->left_count);
    end_left(d);
    push_refs(d, r->right, r->right_count);
    close_rule(d, true);
}

static void drafts_free(drafts *d)
{
    free(d->rules);
    free(d->refs);
}

/* Stores the drafted rules with the other settings of base. */
static int store_drafts(wk_scene *s, const wk_collision_settings *base, drafts *d, wk_status *st)
{
    if (d->nomem)
        return wk_fail(st, WK_NOMEM, "out of memory updating the collision settings");
    wk_collision_rule *rules = d->count ? malloc(d->count * sizeof *rules) : NULL;
    if (d->count && !rules)
        return wk_fail(st, WK_NOMEM, "out of memory updating the collision settings");
    for (size_t i = 0; i < d->count; i++) {
        const rule_draft *r = &d->rules[i];
        rules[i] = (wk_collision_rule){d->refs + r->left_at, r->left_count,
                                       r->right_count ? d->refs + r->right_at : NULL, r->right_count, r->action,
                                       r->hard_margin};
    }
    wk_collision_settings next = *base;
    next.rules = rules;
    next.rule_count = d->count;
    int rc = store(s, &next, st);
    free(rules);
    return rc;
}

/* Pushes refs minus the entities of out: an entity ref stays when its
 * entity is not in out; a whole-object ref stays whole when no entity of out
 * belongs to its object, else becomes refs of its other entities. */
static void push_without(const wk_scene *s, drafts *d, const wk_collision_ref *refs, size_t n, set out1, set out2)
{
    for (size_t i = 0; i < n; i++) {
        wk_collision_ref r = refs[i];
        if (!r.whole_object) {
            if (!in_set(out1, r.entity) && !in_set(out2, r.entity))
                push_ref(d, r);
            continue;
        }
        bool split = false;
        for (size_t k = 0; k < out1.count && !split; k++)
            split = covers(s, r, out1.items[k]);
        for (size_t k = 0; k < out2.count && !split; k++)
            split = covers(s, r, out2.items[k]);
        if (!split) {
            push_ref(d, r);
            continue;
        }
        wk_entity_list entities = {0};
        if (wk_scene_object_entities(s, r.entity, &entities))
            d->nomem = true;
        for (size_t k = 0; k < entities.count; k++) {
            wk_entity e = entities.items[k];
            if (!wk_scene_is_frame(s, e) && !in_set(out1, e) && !in_set(out2, e))
                push_ref(d, (wk_collision_ref){e, false});
        }
        wk_entity_list_free(&entities);
    }
}

/* Pushes, as entity refs, the entities of in that refs cover and that are
 * not in out. */
static void push_covered(const wk_scene *s, drafts *d, const wk_collision_ref *refs, size_t n, set in, set out)
{
    for (size_t i = 0; i < in.count; i++)
        if (!in_set(out, in.items[i]) && side_covers(s, refs, n, in.items[i]))
            push_ref(d, (wk_collision_ref){in.items[i], false});
}

/* Replaces rule r, which covers pairs of a and b, by the rules covering
 * its other pairs. With L and R its sides, and A, B the sets:
 *   (L - A - B) x R,  (L & A - B) x (R - B),  (L & B - A) x (R - A),
 *   (L & A & B) x (R - A - B)
 * which together hold every pair of L x R but those of A x B and B x A. */
static void split_rule(const wk_scene *s, drafts *d, const wk_collision_rule *r, set a, set b)
{
    static const set none = {NULL, 0};
    /* A & B, for the last part. */
    wk_entity both_items[64];
    wk_entity *both = a.count <= 64 ? both_items : malloc(a.count * sizeof *both);
    size_t both_count = 0;
    if (!both) {
        d->nomem = true;
        return;
    }
    for (size_t i = 0; i < a.count; i++)
        if (in_set(b, a.items[i]))
            both[both_count++] = a.items[i];
    set ab = {both, both_count};

    /* Each part: its left side (the entities of L in one set and not in
     * another, or L less two sets) and its right side (R less two sets). */
    const struct {
        bool covered;
        set left_in, left_out, right_out1, right_out2;
    } parts[] = {
        {false, a, b, none, none},
        {true, a, b, b, none},
        {true, b, a, a, none},
        {true, ab, none, a, b},
    };
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        open_rule(d, r->action, r->hard_margin);
        if (parts[i].covered)
            push_covered(s, d, r->left, r->left_count, parts[i].left_in, parts[i].left_out);
        else
            push_without(s, d, r->left, r->left_count, parts[i].left_in, parts[i].left_out);
        end_left(d);
        push_without(s, d, r->right, r->right_count, parts[i].right_out1, parts[i].right_out2);
        close_rule(d, false);
    }

    if (both != both_items)
        free(both);
}

static int enable(wk_scene *s, const wk_collision_settings *c, set a, set b, wk_status *st)
{
    drafts d = {0};
    bool changed = false;
    int rc = WK_OK;
    for (size_t i = 0; i < c->rule_count && rc == WK_OK; i++) {
        const wk_collision_rule *r = &c->rules[i];
        if (r->action != WK_COLLISION_EXCLUDE || !rule_touches(s, r, a, b)) {
            push_rule(&d, r);
            continue;
        }
        if (r->right_count == 0) {
            rc = wk_fail(st, WK_PRECONDITION,
                         "collision rule %zu excludes '%s' (of object '%s') from collisions with anything else, "
                         "which cannot be narrowed to all but some entities: update the collision settings instead",
                         i, wk__entity_name(s, r->left[0].entity),
                         wk__object_name(s, wk_scene_object_of(s, r->left[0].entity)));
            break;
        }
        split_rule(s, &d, r, a, b);
        changed = true;
    }
    if (rc == WK_OK && changed)
        rc = store_drafts(s, c, &d, st);
    drafts_free(&d);
    return rc;
}

/* Pushes the distinct entities of a as entity refs. */
static void push_set(drafts *d, set a)
{
    for (size_t i = 0; i < a.count; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = a.items[k] == a.items[i];
        if (!seen)
            push_ref(d, (wk_collision_ref){a.items[i], false});
    }
}

static bool pair_excluded(const wk_scene *s, const wk_collision_settings *c, wk_entity x, wk_entity y)
{
    for (size_t i = 0; i < c->rule_count; i++)
        if (c->rules[i].action == WK_COLLISION_EXCLUDE && rule_covers(s, &c->rules[i], x, y))
            return true;
    return false;
}

bool wk_scene_collisions_excluded(const wk_scene *s, wk_entity x, wk_entity y)
{
    return pair_excluded(s, wk_scene_collision_settings(s), x, y);
}

static int disable(wk_scene *s, const wk_collision_settings *c, set a, set b, wk_status *st)
{
    bool all = true;
    for (size_t i = 0; i < a.count && all; i++)
        for (size_t j = 0; j < b.count && all; j++)
            all = a.items[i] == b.items[j] || pair_excluded(s, c, a.items[i], b.items[j]);
    if (all)
        return WK_OK;
    drafts d = {0};
    for (size_t i = 0; i < c->rule_count; i++)
        push_rule(&d, &c->rules[i]);
    open_rule(&d, WK_COLLISION_EXCLUDE, 0);
    push_set(&d, a);
    end_left(&d);
    push_set(&d, b);
    close_rule(&d, false);
    int rc = store_drafts(s, c, &d, st);
    drafts_free(&d);
    return rc;
}

int wk_scene_toggle_collisions(wk_scene *s, const wk_entity *a, size_t a_count, const wk_entity *b, size_t b_count,
                               wk_toggle_mode mode, wk_status *st)
{
    if (!s->root)
        return wk_fail(st, WK_PRECONDITION, "the scene is not an object world");
    if (mode != WK_TOGGLE_ENABLE && mode != WK_TOGGLE_DISABLE)
        return wk_fail(st, WK_INVALID, "toggle collisions: the toggle mode is unspecified");
    if (!a_count || !b_count)
        return wk_fail(st, WK_INVALID, "toggle collisions: object %s selects no entity", a_count ? "b" : "a");
    for (size_t i = 0; i < a_count + b_count; i++) {
        int rc = check_entity(s, i < a_count ? a[i] : b[i - a_count],
                              i < a_count ? "toggle collisions, object a" : "toggle collisions, object b", st);
        if (rc)
            return rc;
    }
    const wk_collision_settings *c = wk_scene_collision_settings(s);
    set sa = {a, a_count}, sb = {b, b_count};
    return mode == WK_TOGGLE_ENABLE ? enable(s, c, sa, sb, st) : disable(s, c, sa, sb, st);
}

/* ---- deleting objects --------------------------------------------------- */

/* Whether ref names something that is gone, or goes with top's subtree. */
static bool ref_gone(const wk_scene *s, wk_collision_ref ref, wk_entity top)
{
    if (!wk_ecm_exists(s->ecm, ref.entity))
        return true;
    for (wk_entity e = ref.entity; e; e = wk_ecm_parent(s->ecm, e))
        if (e == top)
            return true;
    return false;
}

static void push_kept(const wk_scene *s, drafts *d, const wk_collision_ref *refs, size_t n, wk_entity top)
{
    for (size_t i = 0; i < n; i++)
        if (!ref_gone(s, refs[i], top))
            push_ref(d, refs[i]);
}

int wk__collision_forget(wk_scene *s, wk_entity top, wk_status *st)
{
    const wk_collision_settings *c = wk_scene_collision_settings(s);
    bool touched = false;
    for (size_t i = 0; i < c->rule_count && !touched; i++)
        for (size_t k = 0; k < c->rules[i].left_count + c->rules[i].right_count && !touched; k++)
            touched = ref_gone(s, k < c->rules[i].left_count ? c->rules[i].left[k]
                                                              : c->rules[i].right[k - c->rules[i].left_count],
                               top);
    if (!touched)
        return WK_OK;
    drafts d = {0};
    for (size_t i = 0; i < c->rule_count; i++) {
        const wk_collision_rule *r = &c->rules[i];
        open_rule(&d, r->action, r->hard_margin);
        push_kept(s, &d, r->left, r->left_count, top);
        end_left(&d);
        push_kept(s, &d, r->right, r->right_count, top);
        /* A right side emptied by the deletion would turn "these" into
         * "anything else": the rule goes instead. */
        close_rule(&d, r->right_count == 0);
    }
    int rc = store_drafts(s, c, &d, st);
    drafts_free(&d);
    return rc;
}

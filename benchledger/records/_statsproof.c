/* The statistics proof of checks.py, compiled: `statistics_hold(record)` is True when five rules
 * provably find nothing in `record` (a parsed gsh-llm-core-article/1 record), in one walk over
 * its groups and resources blocks: gsh-statistic-order, gsh-resources-sample-counts,
 * gsh-group-statistic-counts, gsh-resources-counter-intervals and gsh-telemetry-phase-samples
 * (checks.STATISTICS_PROOF_RULES). They were half of the checks' time on a record: about
 * 0.1 ms compiled by Cython, against 0.03 for this walk (bench/HISTORY.md, 12-07).
 *
 * False means "not proven", never "inconsistent": check_record then runs the five rules, which
 * name what is wrong. It proves only what nearly every record is, and leaves everything else to
 * them:
 * - every statistic block the rules read (a group's response, decode and first-token statistics;
 *   each metric of each resources block) is a dict whose minimum, maximum, median and mean are
 *   floats or ints of at most 2**53 in magnitude (exact as doubles, so compared here as Python
 *   compares them), with minimum <= median <= maximum and minimum <= mean <= maximum; a metric
 *   may be null;
 * - its minimum is above 0 where the rule wants a duration or rate (a group statistic, or a
 *   metric with the same name) and at least 0 elsewhere;
 * - each sample_count and what it must equal (for a metric the block's gpu_, process_ or
 *   host_sample_count by the metric's name, for a group statistic the group's
 *   completed_request_count) are ints and equal, or one of them is null;
 * - a block's sampled_counter_deltas, where not null, has ints observed_intervals <=
 *   requested_intervals, and deltas null exactly when observed_intervals is 0;
 * - where a case has telemetry and resources_by_phase, the phases' gpu_ and host_sample_count
 *   (ints) add up to at most telemetry's gpu_ and host_samples (ints);
 * - every case, group, block and statistic is an exact dict or list where the rules read one,
 *   and holds every key they read.
 * A null figure, a figure within the tolerance but outside its range, a bool, NaN, a missing key
 * or any other shape is not proven here. tests/benchledger/records/test_checks.py holds this to
 * the rules. Its state (the key objects below) is global: the module is single-phase and keeps
 * the GIL. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static PyObject *CASES, *GROUPS, *RESOURCES, *COMPLETED, *BY_PHASE, *METRICS;
static PyObject *GPU_COUNT, *PROCESS_COUNT, *HOST_COUNT, *REQUEST_COUNT;
static PyObject *COUNTERS, *OBSERVED, *REQUESTED, *DELTAS, *TELEMETRY, *GPU_SAMPLES, *HOST_SAMPLES;
static PyObject *GROUP_STATISTICS[3];
static PyObject *GPU_PREFIX, *PROCESS_PREFIX;

/* A statistic's keys, by role; FIGURES of them are the figures compared. */
enum { MINIMUM, MAXIMUM, MEDIAN, MEAN, SAMPLE_COUNT, ROLES };
#define FIGURES 4
static const char *ROLE_NAMES[ROLES] = {"minimum", "maximum", "median", "mean", "sample_count"};
static PyObject *role_names[ROLES];
/* The key object last found for each role, held (a freed key's address could be reused). A
 * record parsed by orjson shares its key objects with every other (orjson caches them), so a
 * statistic's keys are matched by address: a lookup by text compares bytes for every key. */
static PyObject *seen[ROLES];

#define EXACT_IN_DOUBLE (1LL << 53)

/* 1 with the value in *out when `v` is an int of at most 2**53 in magnitude (not a bool). */
static int count_of(PyObject *v, long long *out)
{
    int overflow;

    if (!PyLong_CheckExact(v))
        return 0;
    *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    return !overflow && *out <= EXACT_IN_DOUBLE && *out >= -EXACT_IN_DOUBLE;
}

/* 1 with the number in *out when `v` is a float, or an int of at most 2**53 in magnitude (exact
 * as a double, so compared here as Python compares it). */
static int number(PyObject *v, double *out)
{
    long long n;

    if (PyFloat_CheckExact(v)) {
        *out = PyFloat_AS_DOUBLE(v);
        return 1;
    }
    if (!count_of(v, &n))
        return 0;
    *out = (double)n;
    return 1;
}

/* `value` of `holder`'s key (borrowed), NULL when absent (then *failed is set on error). */
static PyObject *item(PyObject *holder, PyObject *key, int *failed)
{
    PyObject *value = PyDict_GetItemWithError(holder, key);

    *failed = value == NULL && PyErr_Occurred();
    return value;
}

/* The role of a statistic's key, -1 for another key (the rules read no other), -2 on error. */
static int role_of(PyObject *key)
{
    int role, same;

    for (role = 0; role < ROLES; role++)
        if (key == seen[role])
            return role;
    if (!PyUnicode_CheckExact(key))
        return -1;
    for (role = 0; role < ROLES; role++) {
        same = PyUnicode_Compare(key, role_names[role]);
        if (same == -1 && PyErr_Occurred())
            return -2;
        if (same == 0) {
            Py_INCREF(key);
            Py_XSETREF(seen[role], key);
            return role;
        }
    }
    return -1;
}

/* 1 when statistic `stat` is null or holds its order (above 0 when `positive`), its
 * sample_count (borrowed, NULL when absent) in *count; 0 when not proven; -1 on error. */
static int in_order(PyObject *stat, int positive, PyObject **count)
{
    PyObject *key, *value;
    Py_ssize_t i = 0;
    double figure[FIGURES], low, high;
    int role, found = 0;

    *count = NULL;
    if (stat == Py_None)
        return 1;
    if (!PyDict_CheckExact(stat))
        return 0;
    while (PyDict_Next(stat, &i, &key, &value)) {
        role = role_of(key);
        if (role == -2)
            return -1;
        if (role == SAMPLE_COUNT)
            *count = value;
        else if (role >= 0) {
            if (!number(value, &figure[role]))
                return 0;
            found |= 1 << role;
        }
    }
    if (found != (1 << FIGURES) - 1)
        return 0;
    low = figure[MINIMUM];
    high = figure[MAXIMUM];
    if (positive ? !(low > 0) : !(low >= 0))
        return 0;
    return low <= figure[MEDIAN] && figure[MEDIAN] <= high && low <= figure[MEAN] && figure[MEAN] <= high;
}

/* Whether metric `name` is named as a group statistic (a duration or rate to the rule); -1 on error. */
static int is_group_statistic(PyObject *name)
{
    int i, same;

    for (i = 0; i < 3; i++) {
        if (PyUnicode_GET_LENGTH(name) != PyUnicode_GET_LENGTH(GROUP_STATISTICS[i]))
            continue;
        same = PyUnicode_Compare(name, GROUP_STATISTICS[i]);
        if (same == -1 && PyErr_Occurred())
            return -1;
        if (same == 0)
            return 1;
    }
    return 0;
}

/* Whether str `name` starts with ASCII `prefix` (`length` chars); -1 on error. */
static int starts_with(PyObject *name, const char *prefix, Py_ssize_t length, PyObject *prefix_object)
{
    if (PyUnicode_GET_LENGTH(name) < length)
        return 0;
    if (PyUnicode_KIND(name) == PyUnicode_1BYTE_KIND)  /* one byte a character: the bytes decide */
        return memcmp(PyUnicode_DATA(name), prefix, (size_t)length) == 0;
    return (int)PyUnicode_Tailmatch(name, prefix_object, 0, length, -1);
}

/* The block's sample count a metric's sample_count must equal (gsh-resources-sample-counts);
 * NULL on error. */
static PyObject *count_source(PyObject *name)
{
    int yes = starts_with(name, "gpu_", 4, GPU_PREFIX);

    if (yes < 0)
        return NULL;
    if (yes)
        return GPU_COUNT;
    yes = starts_with(name, "process_", 8, PROCESS_PREFIX);
    if (yes < 0)
        return NULL;
    return yes ? PROCESS_COUNT : HOST_COUNT;
}

/* 1 when sample count `count` equals `expected` or either is null, 0 when not proven (either
 * missing, or not an int), -1 on error. */
static int counts_equal(PyObject *count, PyObject *expected)
{
    if (count == NULL || expected == NULL)
        return 0;
    if (count == Py_None || expected == Py_None)
        return 1;
    if (!PyLong_CheckExact(count) || !PyLong_CheckExact(expected))
        return 0;
    return PyObject_RichCompareBool(count, expected, Py_EQ);
}

/* 1 when a block's sampled_counter_deltas `counters` (NULL: absent) hold, 0 when not proven,
 * -1 on error. */
static int counters_hold(PyObject *counters)
{
    PyObject *observed, *requested, *deltas;
    long long seen_n, asked_n;
    int failed;

    if (counters == NULL || counters == Py_None)
        return 1;
    if (!PyDict_CheckExact(counters))
        return 0;
    if ((observed = item(counters, OBSERVED, &failed)) == NULL || (requested = item(counters, REQUESTED, &failed)) == NULL
        || (deltas = item(counters, DELTAS, &failed)) == NULL)
        return failed ? -1 : 0;
    if (!count_of(observed, &seen_n) || !count_of(requested, &asked_n))
        return 0;
    return seen_n <= asked_n && (deltas == Py_None) == (seen_n == 0);
}

/* 1 when every metric of resources block `block` holds (order and sample count), 0 when not
 * proven, -1 on error. */
static int block_holds(PyObject *block)
{
    PyObject *metrics, *name, *stat, *count, *source, *counters;
    Py_ssize_t i = 0;
    int positive, held, failed;

    if (!PyDict_CheckExact(block))
        return 0;
    counters = item(block, COUNTERS, &failed);
    if (failed)
        return -1;
    if ((held = counters_hold(counters)) <= 0)
        return held;
    metrics = item(block, METRICS, &failed);
    if (metrics == NULL || !PyDict_CheckExact(metrics))
        return failed ? -1 : 0;
    while (PyDict_Next(metrics, &i, &name, &stat)) {
        if (stat == Py_None)
            continue;
        if (!PyUnicode_CheckExact(name))
            return 0;
        positive = is_group_statistic(name);
        if (positive < 0)
            return -1;
        held = in_order(stat, positive, &count);
        if (held <= 0)
            return held;
        if ((source = count_source(name)) == NULL)
            return -1;
        if ((held = counts_equal(count, item(block, source, &failed))) <= 0)
            return failed ? -1 : held;
    }
    return 1;
}

static int group_holds(PyObject *group)
{
    PyObject *stat, *count, *block;
    int i, held, failed;

    if (!PyDict_CheckExact(group))
        return 0;
    for (i = 0; i < 3; i++) {
        stat = item(group, GROUP_STATISTICS[i], &failed);
        if (failed)
            return -1;
        if (stat == NULL)
            continue;
        if (stat == Py_None)  /* gsh-group-statistic-counts reads its sample_count */
            return 0;
        if ((held = in_order(stat, 1, &count)) <= 0)
            return held;
        if ((held = counts_equal(count, item(group, REQUEST_COUNT, &failed))) <= 0)
            return failed ? -1 : held;
    }
    block = item(group, RESOURCES, &failed);
    if (failed)
        return -1;
    return block == NULL ? 1 : block_holds(block);
}

/* 1 when the samples of a case's phases (`phases`, a dict of blocks that hold) add up to at most
 * its `telemetry`'s, 0 when not proven, -1 on error. */
static int phase_samples_hold(PyObject *phases, PyObject *telemetry)
{
    PyObject *kinds[2][2] = {{GPU_COUNT, GPU_SAMPLES}, {HOST_COUNT, HOST_SAMPLES}};
    PyObject *name, *block, *value;
    Py_ssize_t i;
    long long sum, one, samples;
    int kind, failed;

    if (!PyDict_CheckExact(telemetry))
        return 0;
    for (kind = 0; kind < 2; kind++) {
        sum = 0;
        i = 0;
        while (PyDict_Next(phases, &i, &name, &block)) {
            if ((value = item(block, kinds[kind][0], &failed)) == NULL)
                return failed ? -1 : 0;
            if (!count_of(value, &one))
                return 0;
            sum += one;  /* each at most 2**53 in magnitude, the sum checked after each: no overflow */
            if (sum > EXACT_IN_DOUBLE || sum < -EXACT_IN_DOUBLE)
                return 0;
        }
        if ((value = item(telemetry, kinds[kind][1], &failed)) == NULL)
            return failed ? -1 : 0;
        if (!count_of(value, &samples) || sum > samples)
            return 0;
    }
    return 1;
}

static int case_holds(PyObject *a_case)
{
    PyObject *groups, *block, *phases, *phase, *telemetry;
    Py_ssize_t i;
    int held, failed;

    if (!PyDict_CheckExact(a_case))
        return 0;
    groups = item(a_case, GROUPS, &failed);
    if (failed)
        return -1;
    if (groups != NULL) {
        if (!PyList_CheckExact(groups))
            return 0;
        for (i = 0; i < PyList_GET_SIZE(groups); i++)
            if ((held = group_holds(PyList_GET_ITEM(groups, i))) <= 0)
                return held;
    }
    block = item(a_case, COMPLETED, &failed);
    if (failed)
        return -1;
    if (block != NULL && (held = block_holds(block)) <= 0)
        return held;
    phases = item(a_case, BY_PHASE, &failed);
    if (failed)
        return -1;
    if (phases == NULL)
        return 1;
    if (!PyDict_CheckExact(phases))
        return 0;
    i = 0;
    while (PyDict_Next(phases, &i, &phase, &block))
        if ((held = block_holds(block)) <= 0)
            return held;
    telemetry = item(a_case, TELEMETRY, &failed);
    if (failed)
        return -1;
    return telemetry == NULL ? 1 : phase_samples_hold(phases, telemetry);
}

static PyObject *statistics_hold(PyObject *module, PyObject *record)
{
    PyObject *cases;
    Py_ssize_t i;
    int held = 1, failed;

    (void)module;
    if (!PyDict_CheckExact(record))
        Py_RETURN_FALSE;
    cases = item(record, CASES, &failed);
    if (failed)
        return NULL;
    if (cases == NULL || !PyList_CheckExact(cases))
        Py_RETURN_FALSE;
    for (i = 0; i < PyList_GET_SIZE(cases) && held > 0; i++)
        held = case_holds(PyList_GET_ITEM(cases, i));
    if (held < 0)
        return NULL;
    return PyBool_FromLong(held);
}

static PyMethodDef methods[] = {
    {"statistics_hold", statistics_hold, METH_O,
     "statistics_hold(record): whether the five rules of checks.STATISTICS_PROOF_RULES provably find nothing in it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "benchledger.records._statsproof",
    "The statistics proof of checks.py, compiled.", -1, methods, NULL, NULL, NULL, NULL,
};

static PyObject *interned(const char *text)
{
    return PyUnicode_InternFromString(text);
}

PyMODINIT_FUNC PyInit__statsproof(void)
{
    int role;

    if (CASES == NULL) {  /* names made once: they are immortal to this module */
        CASES = interned("cases");
        GROUPS = interned("groups");
        RESOURCES = interned("resources");
        COMPLETED = interned("completed_response_resources");
        BY_PHASE = interned("resources_by_phase");
        METRICS = interned("metrics");
        GPU_COUNT = interned("gpu_sample_count");
        PROCESS_COUNT = interned("process_sample_count");
        HOST_COUNT = interned("host_sample_count");
        REQUEST_COUNT = interned("completed_request_count");
        COUNTERS = interned("sampled_counter_deltas");
        OBSERVED = interned("observed_intervals");
        REQUESTED = interned("requested_intervals");
        DELTAS = interned("deltas");
        TELEMETRY = interned("telemetry");
        GPU_SAMPLES = interned("gpu_samples");
        HOST_SAMPLES = interned("host_samples");
        GPU_PREFIX = interned("gpu_");
        PROCESS_PREFIX = interned("process_");
        /* checks.GROUP_STATISTICS */
        GROUP_STATISTICS[0] = interned("response_seconds");
        GROUP_STATISTICS[1] = interned("server_decode_tokens_per_second");
        GROUP_STATISTICS[2] = interned("synthetic_first_token_seconds");
        for (role = 0; role < ROLES; role++)
            role_names[role] = interned(ROLE_NAMES[role]);
        if (PyErr_Occurred()) {
            Py_CLEAR(CASES);  /* made again on the next import */
            return NULL;
        }
    }
    return PyModule_Create(&module);
}

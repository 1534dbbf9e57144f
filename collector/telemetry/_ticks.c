/* The host sampler's ticks, compiled (collector/telemetry/host.py): a loop that sleeps to
 * absolute deadlines on CLOCK_MONOTONIC (time.monotonic's clock) and reads a few descriptors
 * whole with pread at offset 0, holding neither the GIL nor any Python object, until its ring of
 * ticks is full or it is stopped. Python takes the ring's text and parses it, so the sampler's
 * Python thread wakes once a ring instead of once a tick: a tick written in Python costs about
 * twice one written in C here, most of it Python's own wake-up (bench/HISTORY.md, 12-04).
 *
 * `Ticker(period_s, capacity)`:
 * - `run()`, from the sampler's thread only: sleeps and reads tick after tick without the GIL;
 *   True when the ring is full (take it, then run again), False once stopped.
 * - `with ticker:` holds the ring (the loop waits for it, and the GIL is let go while waiting),
 *   and inside it, only: `take()` empties the ring into a list of
 *   (t, (bytes | None | errno, ...)), one item per descriptor (None where the descriptor is -1);
 *   `set_files(fds)` changes the descriptors read (the ring must be empty: its ticks were read
 *   from the old ones); `stop()` ends the loop at its next deadline, with no more reads.
 * Descriptors belong to the caller, who closes an old one only after set_files has replaced it
 * (the loop reads only while it holds the ring). Where this module is not compiled, or on a
 * platform without clock_nanosleep, host.py ticks in Python. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 8
#define READ_BYTES 16384 /* what host.py's ProcFile reads: /proc/meminfo is about 1.5 KB */
#define NO_FILE ((ssize_t)-(1L << 30)) /* below any -errno */

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    int mutex_ready;
    int held;       /* Python holds the ring (`with ticker:`), on thread `holder` */
    pthread_t holder;
    int stopped;
    int running;    /* run() is in progress (one thread at a time) */
    int started;    /* `next` holds a deadline */
    int file_count;
    int fds[MAX_FILES];
    struct timespec period, next;
    Py_ssize_t capacity, count;
    double *times;  /* capacity */
    ssize_t *sizes; /* capacity x MAX_FILES: bytes read, -errno, or NO_FILE */
    char *text;     /* capacity x MAX_FILES x READ_BYTES */
} Ticker;

static double seconds_of(const struct timespec *ts)
{
    return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

static void advance(struct timespec *ts, const struct timespec *by)
{
    ts->tv_sec += by->tv_sec;
    ts->tv_nsec += by->tv_nsec;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec += 1;
        ts->tv_nsec -= 1000000000L;
    }
}

static int earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int Ticker_init(Ticker *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"period_s", "capacity", NULL};
    double period_s;
    Py_ssize_t capacity;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dn", names, &period_s, &capacity))
        return -1;
    if (!(period_s > 0 && period_s < 1e6) || capacity < 1 || capacity > 4096) {
        PyErr_SetString(PyExc_ValueError, "period_s must be in (0, 1e6) and capacity in [1, 4096]");
        return -1;
    }
    if (self->mutex_ready) {
        PyErr_SetString(PyExc_RuntimeError, "a Ticker is made once");
        return -1;
    }
    if (pthread_mutex_init(&self->mutex, NULL) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "pthread_mutex_init failed");
        return -1;
    }
    self->mutex_ready = 1;
    self->period.tv_sec = (time_t)period_s;
    self->period.tv_nsec = (long)((period_s - (double)self->period.tv_sec) * 1e9);
    self->capacity = capacity;
    self->times = PyMem_RawMalloc(sizeof(double) * capacity);
    self->sizes = PyMem_RawMalloc(sizeof(ssize_t) * capacity * MAX_FILES);
    /* pages the reads never reach are never touched: meminfo's text uses one of its four */
    self->text = PyMem_RawMalloc((size_t)capacity * MAX_FILES * READ_BYTES);
    if (self->times == NULL || self->sizes == NULL || self->text == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void Ticker_dealloc(Ticker *self)
{
    if (self->mutex_ready)
        pthread_mutex_destroy(&self->mutex);
    PyMem_RawFree(self->times);
    PyMem_RawFree(self->sizes);
    PyMem_RawFree(self->text);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(Ticker *self)
{
    if (self->text == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Ticker.__init__ was not called");
        return 0;
    }
    return 1;
}

static int holding(Ticker *self)
{
    if (!self->held || !pthread_equal(self->holder, pthread_self())) {
        PyErr_SetString(PyExc_RuntimeError, "hold the ticker first (with ticker: ...)");
        return 0;
    }
    return 1;
}

/* One tick: the time, then every descriptor read into the ring's next slot (mutex held). */
static void read_files(Ticker *self)
{
    struct timespec now;
    Py_ssize_t slot = self->count;
    clock_gettime(CLOCK_MONOTONIC, &now);
    self->times[slot] = seconds_of(&now);
    for (int i = 0; i < self->file_count; i++) {
        ssize_t *size = &self->sizes[slot * MAX_FILES + i];
        if (self->fds[i] < 0) {
            *size = NO_FILE;
            continue;
        }
        char *into = self->text + ((size_t)slot * MAX_FILES + i) * READ_BYTES;
        ssize_t got;
        do {
            got = pread(self->fds[i], into, READ_BYTES, 0);
        } while (got < 0 && errno == EINTR);
        *size = got < 0 ? -(ssize_t)errno : got;
    }
    self->count++;
}

static PyObject *Ticker_run(Ticker *self, PyObject *unused)
{
    int full = 0, stopped = 0;
    if (!ready(self))
        return NULL;
    if (self->running) {
        PyErr_SetString(PyExc_RuntimeError, "run() is already running on another thread");
        return NULL;
    }
    if (self->held && pthread_equal(self->holder, pthread_self())) {
        PyErr_SetString(PyExc_RuntimeError, "this thread holds the ticker: run() would wait for itself");
        return NULL;
    }
    self->running = 1;
    Py_BEGIN_ALLOW_THREADS
    if (!self->started) {
        clock_gettime(CLOCK_MONOTONIC, &self->next);
        advance(&self->next, &self->period);
        self->started = 1;
    }
    while (!full && !stopped) {
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &self->next, NULL) == EINTR)
            ;
        pthread_mutex_lock(&self->mutex);
        stopped = self->stopped;
        if (!stopped) {
            if (self->count < self->capacity)
                read_files(self);
            full = self->count >= self->capacity;
        }
        pthread_mutex_unlock(&self->mutex);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        advance(&self->next, &self->period);
        if (earlier(&self->next, &now)) { /* fell behind (a slow read): skip missed ticks instead of bursting */
            self->next = now;
            advance(&self->next, &self->period);
        }
    }
    Py_END_ALLOW_THREADS
    self->running = 0;
    return PyBool_FromLong(!stopped);
}

static PyObject *Ticker_enter(Ticker *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    if (self->held && pthread_equal(self->holder, pthread_self())) { /* it would wait for itself */
        PyErr_SetString(PyExc_RuntimeError, "this thread holds the ticker already");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mutex);
    Py_END_ALLOW_THREADS
    self->held = 1;
    self->holder = pthread_self();
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *Ticker_exit(Ticker *self, PyObject *args)
{
    if (!holding(self))
        return NULL;
    self->held = 0;
    pthread_mutex_unlock(&self->mutex);
    Py_RETURN_FALSE;
}

static PyObject *Ticker_take(Ticker *self, PyObject *unused)
{
    if (!holding(self))
        return NULL;
    PyObject *ticks = PyList_New(self->count);
    if (ticks == NULL)
        return NULL;
    for (Py_ssize_t slot = 0; slot < self->count; slot++) {
        PyObject *reads = PyTuple_New(self->file_count);
        if (reads == NULL)
            goto fail;
        for (int i = 0; i < self->file_count; i++) {
            ssize_t size = self->sizes[slot * MAX_FILES + i];
            PyObject *read;
            if (size == NO_FILE) {
                read = Py_NewRef(Py_None);
            } else if (size < 0) {
                read = PyLong_FromSsize_t(-size);
            } else {
                read = PyBytes_FromStringAndSize(self->text + ((size_t)slot * MAX_FILES + i) * READ_BYTES, size);
            }
            if (read == NULL) {
                Py_DECREF(reads);
                goto fail;
            }
            PyTuple_SET_ITEM(reads, i, read);
        }
        PyObject *tick = Py_BuildValue("(dN)", self->times[slot], reads);
        if (tick == NULL)
            goto fail;
        PyList_SET_ITEM(ticks, slot, tick);
    }
    self->count = 0;
    return ticks;
fail:
    Py_DECREF(ticks);
    return NULL;
}

static PyObject *Ticker_set_files(Ticker *self, PyObject *fds)
{
    if (!holding(self))
        return NULL;
    if (self->count != 0) {
        PyErr_SetString(PyExc_RuntimeError, "take() the ring before set_files(): its ticks were read from the old files");
        return NULL;
    }
    PyObject *sequence = PySequence_Fast(fds, "set_files() takes a sequence of descriptors");
    if (sequence == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    int chosen[MAX_FILES];
    if (count > MAX_FILES) {
        Py_DECREF(sequence);
        PyErr_Format(PyExc_ValueError, "at most %d descriptors", MAX_FILES);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        long fd = PyLong_AsLong(PySequence_Fast_GET_ITEM(sequence, i));
        if (fd == -1 && PyErr_Occurred()) {
            Py_DECREF(sequence);
            return NULL;
        }
        if (fd < -1 || fd > 0x7fffffffL) {
            Py_DECREF(sequence);
            PyErr_SetString(PyExc_ValueError, "a descriptor is -1 (no file) or a non-negative int");
            return NULL;
        }
        chosen[i] = (int)fd;
    }
    Py_DECREF(sequence);
    for (Py_ssize_t i = 0; i < count; i++)
        self->fds[i] = chosen[i];
    self->file_count = (int)count;
    Py_RETURN_NONE;
}

static PyObject *Ticker_stop(Ticker *self, PyObject *unused)
{
    if (!holding(self))
        return NULL;
    self->stopped = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Ticker_methods[] = {
    {"run", (PyCFunction)Ticker_run, METH_NOARGS,
     "Sleep to each deadline and read the files, without the GIL: True when the ring is full, False once stopped."},
    {"__enter__", (PyCFunction)Ticker_enter, METH_NOARGS, "Hold the ring: the loop waits until it is let go."},
    {"__exit__", (PyCFunction)Ticker_exit, METH_VARARGS, "Let the ring go."},
    {"take", (PyCFunction)Ticker_take, METH_NOARGS, "The ticks held, in order, as [(t, reads)]; the ring is empty after."},
    {"set_files", (PyCFunction)Ticker_set_files, METH_O, "The descriptors each tick reads from now on (-1: none)."},
    {"stop", (PyCFunction)Ticker_stop, METH_NOARGS, "End the loop at its next deadline, with no more reads."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TickerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "collector.telemetry._ticks.Ticker",
    .tp_basicsize = sizeof(Ticker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Ticks of the host sampler read in C: see the module's comment.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Ticker_init,
    .tp_dealloc = (destructor)Ticker_dealloc,
    .tp_methods = Ticker_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ticks", "The host sampler's ticks, read in C without the GIL.", -1, NULL,
};

PyMODINIT_FUNC PyInit__ticks(void)
{
    if (PyType_Ready(&TickerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Ticker", (PyObject *)&TickerType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/*
 * Declarations shared by the C files of esbench.metrics._accumulator (see _accumulator.c).
 */
#ifndef ESBENCH_METRICS_ACCUMULATOR_H
#define ESBENCH_METRICS_ACCUMULATOR_H

#include "../_capi.h"

/* accumulator.py's constants and spread(), set by configure() (_accumulator.c). */
ESB_HIDDEN extern long long max_recordable_us; /* -1: configure() not called yet */
ESB_HIDDEN extern Py_ssize_t pending_values;
ESB_HIDDEN extern int exact_bits;
ESB_HIDDEN extern int sub_bits;
ESB_HIDDEN extern long long service_time_offset;
ESB_HIDDEN extern PyObject *unknown_error; /* str */
ESB_HIDDEN extern PyObject *spread_fn;     /* accumulator.spread */

/* Interned names (module init). */
ESB_HIDDEN extern PyObject *str_flush, *str_freeze_before;

typedef struct {
    PyObject_HEAD
    long long count;
    long long error_count;
    long long overflow;
    double weight;
    double service_sum;
    double last_end;
    long long bytes_sent;
    long long bytes_received;
    PyObject *pending; /* tuple of three dicts */
    PyObject *windows; /* list of float */
    PyObject *live;    /* dict: window -> dict */
    PyObject *buckets; /* WindowBuckets */
    PyObject *errors;  /* dict: str -> int */
} PhaseObject;

typedef struct {
    PyObject_HEAD
    long long count;
    long long error_count;
    double total_weight;
    int has_origin;
    double origin;
    PyObject *warmup;        /* PhaseCounters */
    PyObject *measurement;   /* PhaseCounters */
    PyObject *samples;       /* bytearray of per-request samples, or NULL/None (off) */
    PyObject *sample_errors; /* dict: sample position -> error type, with samples */
} CoreObject;

ESB_HIDDEN extern PyTypeObject PhaseType; /* _phase.c */
ESB_HIDDEN extern PyTypeObject CoreType;  /* _accumulator.c */

/* _phase.c: the arithmetic of PyRecorderCore.record, piece by piece. */
ESB_HIDDEN int float_to_ll(double x, long long *out, int *overflow);
ESB_HIDDEN int count_into(PyObject *dict, long long key);
ESB_HIDDEN long long bucket_of(long long us);
ESB_HIDDEN int add_to_window(PyObject *windows, long long k, double weight);
ESB_HIDDEN int check_phase(PyObject *phase);
/* _record.c */
ESB_HIDDEN int record_init_names(void);
ESB_HIDDEN PyObject *core_record(CoreObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames);

#endif

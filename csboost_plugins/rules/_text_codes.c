/* An object column's text codes for the rule engine (csboost_plugins.rules._engine._ObjectCodes).

   codes(values, r0, r1, literals, out) -> bool
     values: address of a C-contiguous numpy object array's pointers (the caller keeps the array alive and
             checks 0 <= r0 <= r1 <= its length); out: address of r1 - r0 float64 (the caller's array).
     out[i - r0] = j where values[i] is a str equal to literals[j], -1.0 for a str equal to none of them,
                   NaN for None (or an empty slot) and a float NaN.
     False (out partly written) at the first value of any other kind (a str subclass, a number, pd.NA...):
     the caller then reads the rows in Python, which gives the reference's reading and errors.

   Why C: Python's own comparison of a str with each literal is length, kind and bytes, done here without
   hashing or calling back into the interpreter (a column of strings created row by row has no cached
   hashes), so a row costs a few nanoseconds under the GIL instead of tens.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* the first 8 bytes of a str's data, zero beyond its nbytes <= 8: a byte past the text reads the str's
   terminating zero (data[nbytes], always there), so the loop neither branches nor reads past the object */
static inline uint64_t short_word(const unsigned char *data, Py_ssize_t nbytes) {
    uint64_t w = 0;
    for (Py_ssize_t b = 0; b < 8; b++)
        w |= (uint64_t)data[b < nbytes ? b : nbytes] << (8 * b);
    return w;
}

#define MAX_LITERALS 64

static PyObject *codes(PyObject *self, PyObject *args) {
    Py_ssize_t values_addr, r0, r1, out_addr;
    PyObject *literals;
    if (!PyArg_ParseTuple(args, "nnnO!n", &values_addr, &r0, &r1, &PyTuple_Type, &literals, &out_addr))
        return NULL;
    if (r0 < 0 || r1 < r0 || (r1 > r0 && (values_addr == 0 || out_addr == 0))) {
        PyErr_SetString(PyExc_ValueError, "codes: bad row range or address");
        return NULL;
    }
    Py_ssize_t k = PyTuple_GET_SIZE(literals);
    if (k > MAX_LITERALS) {
        PyErr_SetString(PyExc_ValueError, "codes: too many literals");
        return NULL;
    }
    /* each literal's byte count (length x kind) and, when at most 8 bytes, its bytes as one word: a row's
       short text is then compared with every short literal without a branch on which one it equals */
    uint64_t word[MAX_LITERALS];
    Py_ssize_t nbytes[MAX_LITERALS];
    int kinds[MAX_LITERALS];
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *lit = PyTuple_GET_ITEM(literals, j);
        if (!PyUnicode_CheckExact(lit)) {
            PyErr_SetString(PyExc_TypeError, "codes: literals must be str");
            return NULL;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(lit) < 0) return NULL;
#endif
        kinds[j] = PyUnicode_KIND(lit);
        nbytes[j] = PyUnicode_GET_LENGTH(lit) * kinds[j];
        word[j] = nbytes[j] <= 8 ? short_word(PyUnicode_DATA(lit), nbytes[j]) : 0;
    }
    PyObject **values = (PyObject **)values_addr;
    double *out = (double *)out_addr;
    for (Py_ssize_t i = r0; i < r1; i++) {
        PyObject *o = values[i];
        if (o == NULL || o == Py_None) {
            out[i - r0] = NAN;
        } else if (PyUnicode_CheckExact(o)) {
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(o) < 0) return NULL;
#endif
            int kind = PyUnicode_KIND(o);
            Py_ssize_t nb = PyUnicode_GET_LENGTH(o) * kind;
            const unsigned char *data = PyUnicode_DATA(o);
            double code = -1.0;
            /* str is canonical (PEP 393): equal strings have the same kind, length and bytes */
            if (nb <= 8) {
                uint64_t w = short_word(data, nb);
                Py_ssize_t found = 0;  /* literals are distinct: at most one term is not zero */
                for (Py_ssize_t j = 0; j < k; j++)  /* & not &&: no branch on which literal a row equals */
                    found += ((word[j] == w) & (nbytes[j] == nb) & (kinds[j] == kind)) * (j + 1);
                code = (double)(found - 1);
            } else {
                for (Py_ssize_t j = 0; j < k; j++) {
                    if (nbytes[j] == nb && kinds[j] == kind &&
                        memcmp(PyUnicode_DATA(PyTuple_GET_ITEM(literals, j)), data, (size_t)nb) == 0) {
                        code = (double)j;
                        break;
                    }
                }
            }
            out[i - r0] = code;
        } else if (PyFloat_CheckExact(o) && isnan(PyFloat_AS_DOUBLE(o))) {
            out[i - r0] = NAN;
        } else {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"codes", codes, METH_VARARGS, "Text codes of rows r0 .. r1 - 1 of an object array (see the module's source)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_text_codes", NULL, -1, methods};

PyMODINIT_FUNC PyInit__text_codes(void) { return PyModule_Create(&module); }

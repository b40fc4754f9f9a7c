/* Internal: scalar conversions between float32/float64 and the narrow float formats (being written). */
#ifndef DLX_CORE_CONVERT_H
#define DLX_CORE_CONVERT_H
#endif

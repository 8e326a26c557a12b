/* stand-in for the system header <stddef.h> */
typedef unsigned long size_t;

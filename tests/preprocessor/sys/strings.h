/* stand-in for the system header <strings.h> */
typedef unsigned long strings_size_t;

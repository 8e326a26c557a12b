/* stand-in for the system header <stdio.h> */
typedef unsigned long stdio_size_t;

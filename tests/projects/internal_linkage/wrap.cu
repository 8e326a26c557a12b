// Compiles strips.cu inside this unit: its `static` launchers are this
// unit's own copies, called here too. The call below passes 16 to
// `launch_strip_included`, so `strip_included` runs 64-thread blocks over
// 16-wide rows in this unit (a race that strips.cu's own unit does not
// show). Defines no kernel of its own.
#include "strips.cu"

void run_wrapped(float *out)
{
    launch_strip_included(out, 16);
}

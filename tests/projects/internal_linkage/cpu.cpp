// CPU code of the project reusing the names of strips.cu's launchers for
// functions of its own, with internal linkage too: none of them is
// strips.cu's, so their arguments bind nothing there.
static void launch_strip(float *out, int width)
{
    for (int i = 0; i < width; ++i) {
        out[i] = (float)i;
    }
}

static void launch_strip_narrow(float *out, int width)
{
    for (int i = 0; i < width; i += 2) {
        out[i] = 0.0f;
    }
}

namespace {
void launch_band(float *out, int width)
{
    for (int i = 0; i < width; ++i) {
        out[i] *= 2.0f;
    }
}
} // namespace

void reference(float *out)
{
    launch_strip(out, 16);
    launch_strip_narrow(out, 128);
    launch_band(out, 8);
}

/*
 * SDL's headless video driver for processes without a display (docs/KNOWN-LIMITS.md KL-8).
 *
 * Why: pjsua_init lists video devices, and pjmedia's SDL renderer initialises SDL's video
 * subsystem there. With no display SDL probes its drivers one by one, and its Wayland probe
 * prints "XDG_RUNTIME_DIR is invalid or not set" on stderr: hundreds of lines in a test log, one
 * per engine start in a bot's journal. The renderer is not needed until a window is, and SDL's
 * "dummy" driver opens none.
 *
 * How: through SDL's hint (SDL_HINT_VIDEODRIVER, "SDL_VIDEODRIVER"), not the environment: a
 * library cannot call setenv safely once threads run, and the hint is SDL's own state, read by
 * SDL_VideoInit. The hint is set at SDL's default priority, so a user's SDL_VIDEODRIVER still
 * wins. SDL is looked up in the running process (pjmedia-videodev links it on Linux), so this
 * target gains no dependency, and a build without SDL (the iOS binary renders with Metal) finds
 * nothing and does nothing.
 *
 * Threading: called on the engine's thread before pjsua_init, when no SDL thread exists yet.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include "CPJSUASupport.h"

typedef int (*sdl_set_hint_with_priority)(const char *name, const char *value, int priority);

int32_t cpjsua_video_prefer_headless(void) {
    if (getenv("DISPLAY") != NULL || getenv("WAYLAND_DISPLAY") != NULL || getenv("SDL_VIDEODRIVER") != NULL) return 0;
    sdl_set_hint_with_priority set_hint = (sdl_set_hint_with_priority)dlsym(RTLD_DEFAULT, "SDL_SetHintWithPriority");
    if (set_hint == NULL) return 0;
    /* SDL_HINT_DEFAULT is 0: the environment, if set later, overrides. */
    return set_hint("SDL_VIDEODRIVER", "dummy", 0) ? 1 : 0;
}

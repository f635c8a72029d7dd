/*
 * SDL, which pjmedia's video renderer brings into the process on Linux, told to behave like a
 * library's library: no signal handlers, and no display probing where there is no display.
 *
 * Why: pjsua_init lists video devices, and pjmedia's SDL renderer calls SDL_Init(SDL_INIT_VIDEO)
 * there, which also starts SDL's event subsystem. Left to itself SDL then
 * - installs SIGINT and SIGTERM handlers (where the app left them at their defaults) that turn the
 *   signal into an SDL_QUIT event nobody reads: a bot or server built on the engine, and the pjsua
 *   app, then ignore `kill` and `systemctl stop` (measured: the pjsua app had to be SIGKILLed);
 * - with no display, probes its drivers one by one, and its Wayland probe prints
 *   "XDG_RUNTIME_DIR is invalid or not set" on stderr: hundreds of lines in a test log, one per
 *   engine start in a bot's journal (docs/KNOWN-LIMITS.md KL-8). The renderer needs no window
 *   until one is shown, and SDL's "dummy" driver opens none.
 *
 * How: through SDL's hints (SDL_HINT_NO_SIGNAL_HANDLERS, SDL_HINT_VIDEODRIVER), not the
 * environment: a library cannot call setenv safely once threads run, and hints are SDL's own
 * state, read by SDL_Init. They are set at SDL's default priority, so a user's environment
 * variable of the same name still wins. SDL is looked up in the running process (pjmedia-videodev
 * links it on Linux), so this target gains no dependency, and a build without SDL (the iOS
 * binary renders with Metal) finds nothing and does nothing.
 *
 * Threading: called on the engine's thread before pjsua_init, when no SDL thread exists yet.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include "CPJSUASupport.h"

typedef int (*sdl_set_hint_with_priority)(const char *name, const char *value, int priority);

int32_t cpjsua_sdl_set_hints(void) {
    sdl_set_hint_with_priority set_hint = (sdl_set_hint_with_priority)dlsym(RTLD_DEFAULT, "SDL_SetHintWithPriority");
    if (set_hint == NULL) return 0;
    int32_t set = 0;
    /* SDL_HINT_DEFAULT is 0: an environment variable of the same name overrides. */
    if (set_hint("SDL_NO_SIGNAL_HANDLERS", "1", 0)) set |= 1;
    int has_display = getenv("DISPLAY") != NULL || getenv("WAYLAND_DISPLAY") != NULL;
    if (!has_display && getenv("SDL_VIDEODRIVER") == NULL && set_hint("SDL_VIDEODRIVER", "dummy", 0)) set |= 2;
    return set;
}

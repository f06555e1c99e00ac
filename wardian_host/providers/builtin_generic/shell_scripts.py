"""The start-up files that make bash and zsh write shell integration marks (OSC 133).

Each runs the user's own start-up first, unchanged, then adds the marks: A before each
prompt, B at its end, C when a command starts, D;<exit code> when it finished (only after
a command ran; the parser ignores a D without a C all the same).
"""

# bash --rcfile: /etc/bash.bashrc still runs as usual; ~/.bashrc is sourced here.
# The exit code is taken before the user's PROMPT_COMMAND runs, and the marks are printed
# after it, so a prompt tool that rebuilds PS1 (starship, git prompts) keeps its B mark.
# bash restores $? after PROMPT_COMMAND, so a PS1 that shows it still shows the command's.
BASHRC = r"""# Written by Wardian for one agent; the user's ~/.bashrc runs first, unchanged.
if [ -f ~/.bashrc ]; then . ~/.bashrc; fi

__wardian_status() { __wardian_exit=$?; }
__wardian_prompt() {
  # \# (the number of the next command) moves only when a command ran: an empty line gets no D.
  local number='\#'
  number=${number@P}
  if [ "$number" != "${__wardian_number-$number}" ]; then printf '\033]133;D;%s\007' "$__wardian_exit"; fi
  __wardian_number=$number
  printf '\033]133;A\007'
  case $PS1 in *'133;B'*) ;; *) PS1="$PS1"'\[\033]133;B\007\]' ;; esac
}
# PS0 is printed after a command line is read, before it runs (bash 4.4+); an empty line prints none.
PS0="${PS0-}"'\033]133;C\007'
if (( ${#PROMPT_COMMAND[@]} > 1 )); then
  PROMPT_COMMAND=(__wardian_status "${PROMPT_COMMAND[@]}" __wardian_prompt)
else
  PROMPT_COMMAND=$'__wardian_status\n'"${PROMPT_COMMAND-}"$'\n__wardian_prompt'
fi
"""

# zsh reads its start-up files from $ZDOTDIR, which Wardian points at a per-agent directory
# holding the four below. Each runs the user's file of the same name from the user's
# ZDOTDIR (or ~), as zsh would have; the user's .zshenv may move ZDOTDIR, which is followed.
_ZSH_USER_FILE = r"""__wardian_zdotdir=$ZDOTDIR
ZDOTDIR=${WARDIAN_USER_ZDOTDIR:-$HOME}
[[ -f $ZDOTDIR/{name} ]] && source $ZDOTDIR/{name}
WARDIAN_USER_ZDOTDIR=$ZDOTDIR
ZDOTDIR=$__wardian_zdotdir
"""
# The last start-up file gives the shell its ZDOTDIR back, so a zsh started inside the agent
# reads the user's files only.
_ZSH_RESTORE = "ZDOTDIR=$WARDIAN_USER_ZDOTDIR\n"

# The status is taken by the first precmd function (zsh gives each the command's $?), the
# marks are printed by the last one, after any prompt theme rebuilt PS1.
_ZSH_MARKS = r"""
__wardian_status() { __wardian_exit=$? }
__wardian_prompt() {
  if (( ${+__wardian_ran} )); then
    print -rn -- $'\e]133;D;'"$__wardian_exit"$'\a'
    unset __wardian_ran
  fi
  print -rn -- $'\e]133;A\a'
  [[ $PS1 == *$'\e]133;B'* ]] || PS1+=$'%{\e]133;B\a%}'
}
__wardian_started() { __wardian_ran=1; print -rn -- $'\e]133;C\a' }
precmd_functions=(__wardian_status $precmd_functions __wardian_prompt)
preexec_functions+=(__wardian_started)
"""

_HEADER = "# Written by Wardian for one agent; the user's own {name} runs first, unchanged.\n"


def _zsh_file(name: str, tail: str = "") -> str:
    return _HEADER.format(name=name) + _ZSH_USER_FILE.replace("{name}", name) + tail


ZSH_FILES = {
    ".zshenv": _zsh_file(".zshenv"),
    ".zprofile": _zsh_file(".zprofile"),
    # A login shell reads .zlogin after .zshrc: the restore waits for it there.
    ".zshrc": _zsh_file(".zshrc", _ZSH_MARKS + "[[ -o login ]] || " + _ZSH_RESTORE),
    ".zlogin": _zsh_file(".zlogin", _ZSH_RESTORE),
}

# bash completion for fibtrace (make install puts it in
# $(PREFIX)/share/bash-completion/completions/fibtrace). The options come
# from the program's own --help, so the list is never out of date.
_fibtrace()
{
	local cur prev i algos
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	# After "--": the command to trace.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			return
		fi
	done
	case $prev in
	--attach) mapfile -t COMPREPLY < <(compgen -W 'auto fentry multi kprobe' -- "$cur"); return ;;
	--compare) mapfile -t COMPREPLY < <(compgen -W 'algos formats builds' -- "$cur"); return ;;
	--user) mapfile -t COMPREPLY < <(compgen -u -- "$cur"); return ;;
	--outliers) mapfile -t COMPREPLY < <(compgen -W 'tukey keep trim' -- "$cur"); return ;;
	--format) mapfile -t COMPREPLY < <(compgen -W 'text json benchfmt' -- "$cur"); return ;;
	--metric)
		mapfile -t COMPREPLY < <(compgen -W 'total compute format copy oncpu user counter
			sim:Ir sim:Dr sim:Dw sim:I1mr sim:D1mr sim:D1mw sim:ILmr sim:DLmr sim:DLmw
			sim:Bc sim:Bcm sim:Bi sim:Bim' -- "$cur")
		return
		;;
	-a | --algo)
		# The loaded device's algorithms (their names, before the tab).
		algos=$(cut -f1 /sys/class/misc/fibonacci/algorithms 2>/dev/null)
		mapfile -t COMPREPLY < <(compgen -W "$algos" -- "$cur")
		return
		;;
	--load | --device | --save-json | --save-csv | --save-benchfmt | --plot | --folded | \
		--flamegraph | --trace-out)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		opts=$("${COMP_WORDS[0]}" --help-all 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z?][a-z-]*' |
			tr -d ' ,' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi
	# --compare builds A.ko B.ko
	mapfile -t COMPREPLY < <(compgen -f -X '!*.ko' -- "$cur")
	compopt -o plusdirs 2>/dev/null
}
complete -F _fibtrace fibtrace

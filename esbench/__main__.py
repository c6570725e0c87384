from esbench.cli import main

main()

from policycheck.cli import main

main()

from policycheck.interfaces.cli import main

main()

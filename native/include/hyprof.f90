! hyprof — the Fortran module (`use hyprof`).
!
! The routines of the C API (hyprof.h), with the same names, taking ordinary Fortran strings: a
! fixed-length variable's trailing blanks are dropped. Underneath, every routine is a BIND(C)
! interface to a function of libhyprof.so (CHARACTER(len=*) dummies travel as Fortran 2018 C
! descriptors), so the module has no code of its own: compile with the directory of hyprof.mod on
! the include path and link with libhyprof, which `hyprof config --fflags --libs` prints:
!
!   gfortran $(hyprof config --fflags) app.f90 -o app $(hyprof config --libs)
!
! Handles are values of the types hyprof_event_t and hyprof_user_event_t. Timers and phases started
! here are the C API's: same events, same rules (a stop that does not match the running timer warns
! once and the profile stays consistent).
module hyprof
  use, intrinsic :: iso_c_binding, only: c_ptr, c_char, c_int, c_int32_t, c_int64_t, c_float, c_double
  implicit none
  private

  ! A timer or phase (hyprof_event / hyprof_phase); valid for the life of the process.
  type, bind(C), public :: hyprof_event_t
    type(c_ptr) :: handle
  end type

  ! An atomic user event (hyprof_user_event).
  type, bind(C), public :: hyprof_user_event_t
    type(c_ptr) :: handle
  end type

  public :: hyprof_init, hyprof_register_thread, hyprof_event, hyprof_phase, hyprof_start, hyprof_stop
  public :: hyprof_start_named, hyprof_stop_named, hyprof_phase_start, hyprof_phase_stop, hyprof_param
  public :: hyprof_set_node, hyprof_set_thread_name, hyprof_flush, hyprof_metadata
  public :: hyprof_user_event, hyprof_user_event_trigger, hyprof_context_event_trigger
  public :: hyprof_disable_instrumentation, hyprof_enable_instrumentation

  interface
    ! Initialise now (otherwise done on first use).
    subroutine hyprof_init() bind(C, name='hyprof_init')
    end subroutine

    ! Make sure the calling thread is measured.
    subroutine hyprof_register_thread() bind(C, name='hyprof_register_thread')
    end subroutine

    ! Register (or find) a timer; group absent or blank: TAU_USER.
    function hyprof_event(name, group) bind(C, name='hyprof_f_event')
      import
      character(kind=c_char, len=*), intent(in) :: name
      character(kind=c_char, len=*), intent(in), optional :: group
      type(hyprof_event_t) :: hyprof_event
    end function

    ! Register (or find) a phase (its group gets |TAU_PHASE).
    function hyprof_phase(name, group) bind(C, name='hyprof_f_phase')
      import
      character(kind=c_char, len=*), intent(in) :: name
      character(kind=c_char, len=*), intent(in), optional :: group
      type(hyprof_event_t) :: hyprof_phase
    end function

    ! Start / stop by handle: the fast path.
    subroutine hyprof_start(event) bind(C, name='hyprof_f_start')
      import
      type(hyprof_event_t), value :: event
    end subroutine

    subroutine hyprof_stop(event) bind(C, name='hyprof_f_stop')
      import
      type(hyprof_event_t), value :: event
    end subroutine

    ! Start / stop by name (looked up on each call through a per-thread cache).
    subroutine hyprof_start_named(name) bind(C, name='hyprof_f_start_named')
      import
      character(kind=c_char, len=*), intent(in) :: name
    end subroutine

    subroutine hyprof_stop_named(name) bind(C, name='hyprof_f_stop_named')
      import
      character(kind=c_char, len=*), intent(in) :: name
    end subroutine

    ! Phases by name; names may be built at run time ("Iteration 3").
    subroutine hyprof_phase_start(name) bind(C, name='hyprof_f_phase_start')
      import
      character(kind=c_char, len=*), intent(in) :: name
    end subroutine

    subroutine hyprof_phase_stop(name) bind(C, name='hyprof_f_phase_stop')
      import
      character(kind=c_char, len=*), intent(in) :: name
    end subroutine

    ! The node (MPI rank) this process writes as.
    subroutine hyprof_set_node(node) bind(C, name='hyprof_set_node')
      import
      integer(c_int), value :: node
    end subroutine

    ! Name the calling thread.
    subroutine hyprof_set_thread_name(name) bind(C, name='hyprof_f_set_thread_name')
      import
      character(kind=c_char, len=*), intent(in) :: name
    end subroutine

    ! Write the raw measurement file now.
    subroutine hyprof_flush() bind(C, name='hyprof_flush')
    end subroutine

    ! A name / value pair written in the profile's metadata.
    subroutine hyprof_metadata(name, value) bind(C, name='hyprof_f_metadata')
      import
      character(kind=c_char, len=*), intent(in) :: name, value
    end subroutine

    ! Register (or find) an atomic user event.
    function hyprof_user_event(name) bind(C, name='hyprof_f_user_event')
      import
      character(kind=c_char, len=*), intent(in) :: name
      type(hyprof_user_event_t) :: hyprof_user_event
    end function

    ! Switch every probe off and on again, for the whole process.
    subroutine hyprof_disable_instrumentation() bind(C, name='hyprof_disable_instrumentation')
    end subroutine

    subroutine hyprof_enable_instrumentation() bind(C, name='hyprof_enable_instrumentation')
    end subroutine
  end interface

  ! Specialise the running timer by a parameter: integer or integer(8) values.
  interface hyprof_param
    subroutine hyprof_param_i4(name, value) bind(C, name='hyprof_f_param_i4')
      import
      character(kind=c_char, len=*), intent(in) :: name
      integer(c_int32_t), value :: value
    end subroutine

    subroutine hyprof_param_i8(name, value) bind(C, name='hyprof_f_param_i8')
      import
      character(kind=c_char, len=*), intent(in) :: name
      integer(c_int64_t), value :: value
    end subroutine
  end interface

  ! Record a value of a user event: real, real(8), integer or integer(8).
  interface hyprof_user_event_trigger
    subroutine hyprof_trigger_r8(event, value) bind(C, name='hyprof_f_trigger_r8')
      import
      type(hyprof_user_event_t), value :: event
      real(c_double), value :: value
    end subroutine

    subroutine hyprof_trigger_r4(event, value) bind(C, name='hyprof_f_trigger_r4')
      import
      type(hyprof_user_event_t), value :: event
      real(c_float), value :: value
    end subroutine

    subroutine hyprof_trigger_i4(event, value) bind(C, name='hyprof_f_trigger_i4')
      import
      type(hyprof_user_event_t), value :: event
      integer(c_int32_t), value :: value
    end subroutine

    subroutine hyprof_trigger_i8(event, value) bind(C, name='hyprof_f_trigger_i8')
      import
      type(hyprof_user_event_t), value :: event
      integer(c_int64_t), value :: value
    end subroutine
  end interface

  ! The same, also recorded under "<name> : <path of the running timers>" (a context event).
  interface hyprof_context_event_trigger
    subroutine hyprof_context_trigger_r8(event, value) bind(C, name='hyprof_f_context_trigger_r8')
      import
      type(hyprof_user_event_t), value :: event
      real(c_double), value :: value
    end subroutine

    subroutine hyprof_context_trigger_r4(event, value) bind(C, name='hyprof_f_context_trigger_r4')
      import
      type(hyprof_user_event_t), value :: event
      real(c_float), value :: value
    end subroutine

    subroutine hyprof_context_trigger_i4(event, value) bind(C, name='hyprof_f_context_trigger_i4')
      import
      type(hyprof_user_event_t), value :: event
      integer(c_int32_t), value :: value
    end subroutine

    subroutine hyprof_context_trigger_i8(event, value) bind(C, name='hyprof_f_context_trigger_i8')
      import
      type(hyprof_user_event_t), value :: event
      integer(c_int64_t), value :: value
    end subroutine
  end interface
end module hyprof
